import { Schema } from "effect"
import { AlbumId, ArtistId, TrackId } from "../ids.js"
import { Track } from "../library/Library.js"

/** Deployment defaults for radio (spec "Tuning": config keys); `size` is clamped to the maximum. */
export const RADIO_SIZE_DEFAULT = 50
export const RADIO_SIZE_MAX = 200
export const RADIO_RECENTLY_PLAYED_HOURS_DEFAULT = 24

/** What a radio starts from (contract `POST /api/radio`). */
export const RadioSeed = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("track"), id: TrackId }),
  Schema.Struct({ kind: Schema.Literal("artist"), id: ArtistId }),
  Schema.Struct({ kind: Schema.Literal("album"), id: AlbumId }),
  Schema.Struct({ kind: Schema.Literal("genre"), value: Schema.Trim.pipe(Schema.minLength(1)) }),
)
export type RadioSeed = typeof RadioSeed.Type

export const RadioRequest = Schema.Struct({
  seed: RadioSeed,
  size: Schema.optional(Schema.Int.pipe(Schema.positive())),
})
export type RadioRequest = typeof RadioRequest.Type

/** Plays from it are reported with source `radio:<radio_id>` (the radio metrics family). */
export class Radio extends Schema.Class<Radio>("Radio")({
  radio_id: Schema.UUID,
  tracks: Schema.Array(Track),
}) {}
