import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Ratings (issue 26): a listener's 1–5 stars on a track, album or artist, as Subsonic's `setRating` gives them and
 * a Navidrome database keeps them. A rating is its own fact beside a like (Subsonic's star): rating a song does not
 * like it, and removing a rating (0) leaves the like. Written only by `listening/RatingRepository.ts`.
 *
 * `navidrome_playlists` remembers which Tonearm playlist a Navidrome playlist became, per user, so importing the
 * same database again recreates nothing (written only by `history/navidrome/NavidromeRepository.ts`).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE ratings (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      entity text NOT NULL CHECK (entity IN ('track', 'album', 'artist')),
      entity_id uuid NOT NULL,
      rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
      rated_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, entity, entity_id)
    )`
  yield* sql`
    CREATE TABLE navidrome_playlists (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      navidrome_id text NOT NULL,
      playlist_id uuid NOT NULL REFERENCES playlists (id) ON DELETE CASCADE,
      imported_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, navidrome_id)
    )`
  yield* sql`CREATE INDEX navidrome_playlists_playlist_idx ON navidrome_playlists (playlist_id)`
})
