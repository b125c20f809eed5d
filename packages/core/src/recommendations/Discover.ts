import { Schema } from "effect"
import { ArtistId } from "../ids.js"
import { Artist, Track } from "../library/Library.js"
import { PickKind } from "./kinds.js"

/** A MusicBrainz id: a lower-case hyphenated UUID. A malformed one in a path is 400 `invalid_request`. */
export const Mbid = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
    message: () => "mbid must be a MusicBrainz id (a lower-case UUID)",
  }),
  Schema.brand("Mbid"),
)
export type Mbid = typeof Mbid.Type

/**
 * One Discover artist suggestion (contract "Discover and system playlists"). An in-library artist with no
 * MusicBrainz id of its own is suggested under its artist id, so it can still be snoozed.
 */
export class Suggestion extends Schema.Class<Suggestion>("Suggestion")({
  mbid: Schema.String,
  name: Schema.String,
  score: Schema.Number,
  in_library: Schema.Boolean,
  artist_id: Schema.optional(ArtistId),
  image_url: Schema.optional(Schema.String),
  tags: Schema.Array(Schema.String),
}) {}

export class DeckEntry extends Schema.Class<DeckEntry>("DeckEntry")({ pick_kind: PickKind, track: Track }) {}

/** GET /api/discover/deck: the track deck of rule 6. */
export class DiscoverDeck extends Schema.Class<DiscoverDeck>("DiscoverDeck")({ tracks: Schema.Array(DeckEntry) }) {}

/** A snooze's longest horizon, as the tunable's bound (10 years). */
export const SNOOZE_MAX_DAYS = 3650

/** POST /api/discover/suggestions/{mbid}/snooze: `days` defaults to the tunable `discovery.snooze_days`. */
export const SnoozeRequest = Schema.Struct({
  name: Schema.Trim.pipe(Schema.minLength(1, { message: () => "name must not be empty" }), Schema.maxLength(500)),
  days: Schema.optional(Schema.Int.pipe(Schema.between(1, SNOOZE_MAX_DAYS))),
})
export type SnoozeRequest = typeof SnoozeRequest.Type

/** A snooze row: the name is stored because an out-of-library artist has no local row. */
export class Snooze extends Schema.Class<Snooze>("Snooze")({
  candidate_mbid: Schema.String,
  candidate_name: Schema.String,
  snoozed_until: Schema.DateTimeUtc,
}) {}

/** GET /api/artists/{id}/similar: an in-library artist reference, ranked by its similarity score. */
export class SimilarArtist extends Schema.Class<SimilarArtist>("SimilarArtist")({
  ...Artist.fields,
  score: Schema.Number,
}) {}
