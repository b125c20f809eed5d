// A user's plays as `PlayRepository.tasteRows` reads them, and their decoding. Kept apart from the repository
// (no SQL here): the recommendation engine's process decodes the text, so the HTTP event loop only
// passes a few strings and byte arrays along (cheap to post) instead of parsing ~5,000 plays per user.
import { PICK_KINDS, type PickKind, type TrackId } from "@tonearm/core"
import { aggregateColumns, hasAggregateFields } from "../db/aggregateColumns.js"

/**
 * A user's plays in time order as columns (what the recommendation engine reads): one aggregate row per user
 * instead of ~5,000 row objects, checked once per column rather than per row and field.
 */
export interface TasteColumns {
  readonly trackIds: ReadonlyArray<TrackId>
  /** epoch ms */
  readonly startedAtMs: Float64Array
  /** 1 when skipped */
  readonly skipped: Uint8Array
  /** NaN when the play has no completion value */
  readonly completion: Float64Array
  readonly deviceClass: ReadonlyArray<string | null>
  readonly source: ReadonlyArray<string | null>
  readonly pickKind: ReadonlyArray<PickKind | null>
}

/**
 * The aggregate row as PostgreSQL sends it, undecoded: ids and the nullable texts as JSON arrays, floats as
 * big-endian float8 bytes, skips as a 0/1 string. Strings and bytes: cheap to post to a worker. (JSON rather
 * than comma-joined ids: `split` answers slices that keep the whole ~185 KB text alive for as long as the
 * engine keeps one of them, and its per-track maps outlive the job; `JSON.parse` answers strings of their own.)
 */
export interface TasteText {
  readonly plays: number
  readonly track_ids: string
  readonly started_at: Uint8Array
  readonly skipped: string
  readonly completion: Uint8Array
  readonly device_class: string
  readonly source: string
  readonly pick_kind: string
}

/** The aggregate's field types (constant time: the repository checks this much, `decodeTasteText` the rest). */
export const isTasteText = (u: unknown): u is TasteText =>
  hasAggregateFields(
    u,
    "plays",
    ["track_ids", "skipped", "device_class", "source", "pick_kind"],
    ["started_at", "completion"],
  )

/** Whether a value is a `TasteText` rather than decoded columns or rows (a worker gets either). */
export const isUndecodedTaste = (u: unknown): u is TasteText =>
  typeof u === "object" && u !== null && typeof (u as { track_ids?: unknown }).track_ids === "string"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const pickKinds: ReadonlySet<string | null> = new Set<string | null>([...PICK_KINDS, null])

const { invalid, floats, texts } = aggregateColumns("play history", "plays")
const textsOf = (json: string, length: number, name: string) => texts(json, length, name, true)

/** The columns of an aggregate, every value checked; throws on a malformed one (a defect: SQL makes them). */
export const decodeTasteText = (row: TasteText): TasteColumns => {
  const n = row.plays
  if (row.skipped.length !== n || !/^[01]*$/.test(row.skipped)) throw invalid("skipped flags")
  const trackIds = textsOf(row.track_ids, n, "track_ids")
  for (const id of trackIds) if (id === null || !UUID.test(id)) throw invalid(`${JSON.stringify(id)} is not a track id`)
  const skipped = new Uint8Array(n)
  for (let i = 0; i < n; i++) skipped[i] = row.skipped.charCodeAt(i) === 49 ? 1 : 0
  const pickKind = textsOf(row.pick_kind, n, "pick_kind")
  for (const kind of pickKind) if (!pickKinds.has(kind)) throw invalid(`${JSON.stringify(kind)} is not a pick kind`)
  return {
    trackIds: trackIds as ReadonlyArray<string> as ReadonlyArray<TrackId>,
    startedAtMs: floats(row.started_at, n, "started_at"),
    skipped,
    completion: floats(row.completion, n, "completion"),
    deviceClass: textsOf(row.device_class, n, "device_class"),
    source: textsOf(row.source, n, "source"),
    pickKind: pickKind as ReadonlyArray<PickKind | null>,
  }
}
