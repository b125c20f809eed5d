import { SqlClient } from "@effect/sql"
import type { PlaylistId, UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../../db/sqlErrors.js"
import type { NavidromeCatalog } from "./navidromeProtocol.js"

/** The catalogue as the worker reads it; the libraries' folders come from `LibraryRoots`. */
type CatalogRows = Omit<NavidromeCatalog, "libraries">

/**
 * The Navidrome import's own SQL: the library as the worker matches against it (read), and `navidrome_playlists`
 * (the only writer), which remembers the playlist each Navidrome playlist became for its owner.
 */
export class NavidromeRepository extends Effect.Service<NavidromeRepository>()("@tonearm/server/NavidromeRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Present tracks, albums and artists, in columns (one round trip each). */
    const catalog: Effect.Effect<CatalogRows, import("@tonearm/core").Internal> = Effect.gen(function* () {
      const tracks = yield* sql<{
        id: string
        path: string
        mbid: string | null
        album_id: string
        duration_ms: number
      }>`
        SELECT id, path, mbid, album_id, duration_ms FROM tracks`
      const albums = yield* sql<{ id: string; title: string; artist: string; mbid: string | null }>`
        SELECT al.id, al.title, coalesce(al.artist_display, ar.name) AS artist, al.mbid
        FROM albums al JOIN artists ar ON ar.id = al.artist_id`
      const artists = yield* sql<{ id: string; name: string; mbid: string | null }>`SELECT id, name, mbid FROM artists`
      return {
        tracks: {
          ids: tracks.map((row) => row.id),
          paths: tracks.map((row) => row.path),
          mbids: tracks.map((row) => row.mbid),
          albumIds: tracks.map((row) => row.album_id),
          durations: tracks.map((row) => row.duration_ms),
        },
        albums,
        artists,
      }
    }).pipe(orInternal("NavidromeRepository.catalog"))

    /** The playlist a Navidrome playlist already became for this user, if it still exists. */
    const importedPlaylist = (userId: UserId, navidromeId: string) =>
      sql<{ playlist_id: PlaylistId }>`
        SELECT playlist_id FROM navidrome_playlists WHERE user_id = ${userId} AND navidrome_id = ${navidromeId}`.pipe(
        Effect.map((rows) => rows[0]?.playlist_id),
        orInternal("NavidromeRepository.importedPlaylist"),
      )

    const linkPlaylist = (userId: UserId, navidromeId: string, playlistId: PlaylistId, now: Date) =>
      sql`
        INSERT INTO navidrome_playlists (user_id, navidrome_id, playlist_id, imported_at)
        VALUES (${userId}, ${navidromeId}, ${playlistId}, ${now})
        ON CONFLICT (user_id, navidrome_id) DO UPDATE SET playlist_id = EXCLUDED.playlist_id, imported_at = EXCLUDED.imported_at`.pipe(
        Effect.asVoid,
        orInternal("NavidromeRepository.linkPlaylist"),
      )

    return { catalog, importedPlaylist, linkPlaylist } as const
  }),
}) {}
