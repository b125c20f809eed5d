import { Schema } from "effect"
import { PlaylistId } from "../ids.js"
import { PlaylistDescription, PlaylistDetail, PlaylistName } from "../playlists/Playlists.js"

/**
 * Smart playlists ("your own mixes", issue 28 item 5): a rule set the server evaluates into the entries of one
 * of the user's playlists. The vocabulary follows Navidrome's .nsp rules (all/any, is/contains/in the range/in the
 * last days) in Tonearm's JSON style: one condition is `{field, op, value}`, with the operators and the value's
 * shape fixed per field, and every object refuses fields it does not know.
 */

/** Unknown fields are an error here (a typo in a rule must not silently widen the playlist). */
const strict = { parseOptions: { onExcessProperty: "error" } } as const

const Text = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "a text value must not be empty" }),
  Schema.maxLength(200, { message: () => "a text value must be at most 200 characters" }),
)
const Days = Schema.Int.pipe(Schema.between(1, 36_500, { message: () => "days must be between 1 and 36500" }))
const Count = Schema.Int.pipe(Schema.between(0, 1_000_000, { message: () => "a count must be between 0 and 1000000" }))
const Year = Schema.Int.pipe(Schema.between(1000, 3000, { message: () => "a year must be between 1000 and 3000" }))
const Stars = Schema.Int.pipe(Schema.between(1, 5, { message: () => "a rating must be between 1 and 5" }))

export const YearRange = Schema.Struct({ from: Year, to: Year })
  .annotations(strict)
  .pipe(Schema.filter((range) => range.from <= range.to || "year range: from must not be after to"))

export const TextOp = Schema.Literal("is", "is_not", "contains", "not_contains")
export const NumberOp = Schema.Literal("is", "gt", "lt")
export const RecencyOp = Schema.Literal("in_last_days", "not_in_last_days")

const condition = <const F extends string, O extends Schema.Schema.Any, V extends Schema.Schema.Any>(
  field: F,
  op: O,
  value: V,
) => Schema.Struct({ field: Schema.Literal(field), op, value }).annotations(strict)

export const GenreCondition = condition("genre", TextOp, Text)
export const ArtistCondition = condition("artist", TextOp, Text)
export const FormatCondition = condition("format", Schema.Literal("is", "is_not"), Text)
export const YearCondition = Schema.Union(
  condition("year", NumberOp, Year),
  condition("year", Schema.Literal("in_range"), YearRange),
)
/** Added to the library within (or not within) the last `value` days. */
export const AddedCondition = condition("added", RecencyOp, Days)
/** Unskipped plays of the track by the owner. */
export const PlayCountCondition = condition("play_count", NumberOp, Count)
/** The owner's latest play of the track; `not_in_last_days` includes tracks never played. */
export const LastPlayedCondition = condition("last_played", RecencyOp, Days)
export const LikedCondition = condition("liked", Schema.Literal("is"), Schema.Boolean)
/** The owner's star rating of the track; an unrated track matches no rating condition. */
export const RatingCondition = condition("rating", NumberOp, Stars)

export const SmartCondition = Schema.Union(
  GenreCondition,
  ArtistCondition,
  FormatCondition,
  YearCondition,
  AddedCondition,
  PlayCountCondition,
  LastPlayedCondition,
  LikedCondition,
  RatingCondition,
)
export type SmartCondition = typeof SmartCondition.Type
export type SmartField = SmartCondition["field"]
export const SMART_FIELDS: ReadonlyArray<SmartField> = [
  "genre",
  "artist",
  "year",
  "added",
  "play_count",
  "last_played",
  "liked",
  "rating",
  "format",
]

export const SmartSortField = Schema.Literal(
  "random",
  "title",
  "artist",
  "year",
  "added",
  "play_count",
  "last_played",
  "rating",
)
export type SmartSortField = typeof SmartSortField.Type

/** At most this many conditions, and this many tracks in one smart playlist. */
export const SMART_CONDITIONS_MAX = 20
export const SMART_LIMIT_MAX = 1000

export const SmartRules = Schema.Struct({
  match: Schema.Literal("all", "any"),
  conditions: Schema.Array(SmartCondition).pipe(
    Schema.maxItems(SMART_CONDITIONS_MAX, { message: () => `at most ${SMART_CONDITIONS_MAX} conditions` }),
  ),
  sort: Schema.Struct({ field: SmartSortField, order: Schema.Literal("asc", "desc") }).annotations(strict),
  limit: Schema.Int.pipe(
    Schema.between(1, SMART_LIMIT_MAX, { message: () => `limit must be between 1 and ${SMART_LIMIT_MAX}` }),
  ),
}).annotations(strict)
export type SmartRules = typeof SmartRules.Type

export const NewSmartPlaylist = Schema.Struct({
  name: PlaylistName,
  description: Schema.optional(PlaylistDescription),
  rules: SmartRules,
}).annotations(strict)
export type NewSmartPlaylist = typeof NewSmartPlaylist.Type

/** Replaces the rules (and the name when given); the entries are evaluated again on save. */
export const SmartPlaylistPatch = Schema.Struct({
  name: Schema.optional(PlaylistName),
  rules: SmartRules,
}).annotations(strict)
export type SmartPlaylistPatch = typeof SmartPlaylistPatch.Type

export const SmartPreviewRequest = Schema.Struct({ rules: SmartRules }).annotations(strict)

/** How many tracks the rules match now (before the limit) and how many the playlist would hold. */
export class SmartPreview extends Schema.Class<SmartPreview>("SmartPreview")({
  matching: Schema.Int,
  count: Schema.Int,
}) {}

export class SmartPlaylistSummary extends Schema.Class<SmartPlaylistSummary>("SmartPlaylistSummary")({
  id: PlaylistId,
  name: Schema.String,
  track_count: Schema.Int,
  rules: SmartRules,
  refreshed_at: Schema.DateTimeUtc,
}) {}

/** A smart playlist: its rules, when it was last evaluated, and the playlist as GET /api/playlists/{id} shows it. */
export class SmartPlaylist extends Schema.Class<SmartPlaylist>("SmartPlaylist")({
  id: PlaylistId,
  rules: SmartRules,
  refreshed_at: Schema.DateTimeUtc,
  playlist: PlaylistDetail,
}) {}
