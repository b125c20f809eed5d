/**
 * Last.fm's `user.getRecentTracks` (format=json, extended=0) → listens, and the pull's resume cursor. Pure: the
 * server fetches the pages (through the provider throttle) and hands each answer here.
 *
 * Facts of the format this relies on: numbers in `@attr` are strings; `track` is an array, or a single object
 * when there is one entry; the track being played right now comes first with `@attr.nowplaying` and no `date`;
 * `date.uts` is when the listen started (a scrobble's `timestamp` is the start, per Last.fm's scrobble API);
 * `mbid` is the recording's MusicBrainz id or empty. Errors come as `{error: <code>, message}`.
 */
import { Either, Schema } from "effect"
import type { Listen } from "./Imports.js"

/** Scrobbles per page: the most Last.fm serves. */
export const LASTFM_PAGE_SIZE = 200

const Text = Schema.optional(Schema.NullOr(Schema.String))
const Named = Schema.optional(
  Schema.NullOr(
    Schema.Struct({
      "#text": Text,
      // extended=1 names the artist in `name` instead; read either.
      name: Text,
    }),
  ),
)
const NumberText = Schema.Union(Schema.Number, Schema.NumberFromString)

const RecentTrack = Schema.Struct({
  name: Text,
  mbid: Text,
  artist: Named,
  album: Named,
  date: Schema.optional(Schema.NullOr(Schema.Struct({ uts: NumberText }))),
  "@attr": Schema.optional(Schema.NullOr(Schema.Struct({ nowplaying: Text }))),
})

const RecentTracks = Schema.Struct({
  recenttracks: Schema.Struct({
    track: Schema.optional(Schema.NullOr(Schema.Union(Schema.Array(Schema.Unknown), Schema.Unknown))),
    "@attr": Schema.Struct({
      page: NumberText,
      totalPages: NumberText,
      total: NumberText,
    }),
  }),
})

const LastfmError = Schema.Struct({ error: Schema.Number, message: Text })

const decodePage = Schema.decodeUnknownEither(RecentTracks)
const decodeTrack = Schema.decodeUnknownEither(RecentTrack)
const decodeError = Schema.decodeUnknownEither(LastfmError)

/** An entry with a time but no artist or title: listed as unmatched (`incomplete`). */
export interface IncompleteListen {
  readonly artist: string
  readonly title: string
  readonly album: string | null
  readonly started_at_ms: number
}

export type LastfmRecentAnswer =
  | {
      readonly _tag: "page"
      /** The page Last.fm says it served (1 = newest). */
      readonly page: number
      readonly total_pages: number
      /** Scrobbles in the whole range. */
      readonly total: number
      readonly listens: ReadonlyArray<Listen>
      readonly incomplete: ReadonlyArray<IncompleteListen>
      /** Entries left out: the one playing now, and any without a time. */
      readonly skipped: number
    }
  | { readonly _tag: "error"; readonly code: number; readonly message: string }
  | { readonly _tag: "invalid" }

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Earliest and latest scrobble times accepted (Last.fm began in 2002; 1990 … 2200 like the file sources). */
const MIN_MS = Date.UTC(1990, 0, 1)
const MAX_MS = Date.UTC(2200, 0, 1)

const text = (value: string | null | undefined): string => (value ?? "").trim()
const nameOf = (named: { readonly "#text"?: string | null; readonly name?: string | null } | null | undefined) =>
  text(named?.["#text"]) || text(named?.name)
const wholeOrZero = (value: number) => (Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0)

/** One answer of `user.getRecentTracks`, as listens in the order served (newest first). */
export const lastfmRecentTracks = (body: unknown): LastfmRecentAnswer => {
  const failed = decodeError(body)
  if (Either.isRight(failed))
    return { _tag: "error", code: failed.right.error, message: text(failed.right.message) || "no message" }
  const decoded = decodePage(body)
  if (Either.isLeft(decoded)) return { _tag: "invalid" }
  const { track, "@attr": attr } = decoded.right.recenttracks
  const entries = track === undefined || track === null ? [] : Array.isArray(track) ? track : [track]
  const listens: Array<Listen> = []
  const incomplete: Array<IncompleteListen> = []
  let skipped = 0
  for (const entry of entries) {
    const parsed = decodeTrack(entry)
    if (Either.isLeft(parsed)) {
      skipped += 1
      continue
    }
    const scrobble = parsed.right
    const uts = scrobble.date?.uts
    const startedAt = uts === undefined ? Number.NaN : Math.floor(uts) * 1000
    // The track playing now has no time yet: it is not a listen (it will be a scrobble once it ends).
    if (text(scrobble["@attr"]?.nowplaying) === "true" || !(startedAt >= MIN_MS && startedAt <= MAX_MS)) {
      skipped += 1
      continue
    }
    const artist = nameOf(scrobble.artist)
    const title = text(scrobble.name)
    const album = nameOf(scrobble.album) || null
    if (artist === "" || title === "") {
      incomplete.push({ artist, title, album, started_at_ms: startedAt })
      continue
    }
    const mbid = text(scrobble.mbid).toLowerCase()
    listens.push({
      artist,
      title,
      album,
      recording_mbid: MBID.test(mbid) ? mbid : null,
      started_at_ms: startedAt,
      ms_played: null,
    })
  }
  return {
    _tag: "page",
    page: wholeOrZero(attr.page),
    total_pages: wholeOrZero(attr.totalPages),
    total: wholeOrZero(attr.total),
    listens,
    incomplete,
    skipped,
  }
}

/**
 * What to do about a Last.fm error code (Last.fm's API error list): `unknown_user` (6), `private` (17: the
 * listener hides their history), `retry` (8 backend error, 11 offline, 16 temporary, 29 rate limit), else `fatal`
 * (a bad key, a suspended key, a bad parameter: asking again will not help).
 */
export const lastfmErrorKind = (code: number): "unknown_user" | "private" | "retry" | "fatal" =>
  code === 6 ? "unknown_user" : code === 17 ? "private" : [8, 11, 16, 29].includes(code) ? "retry" : "fatal"

/**
 * Where a pull resumes. `to` is fixed (epoch seconds) when the pull starts, so scrobbles made during the import do
 * not shift the pages under it; `page` is the next page to fetch (1 = newest); `done` once the last page is in
 * (a restart then fetches nothing again).
 */
export const LastfmCursor = Schema.Struct({
  to: Schema.Int.pipe(Schema.positive()),
  page: Schema.Int.pipe(Schema.positive()),
  done: Schema.Boolean,
})
export type LastfmCursor = typeof LastfmCursor.Type

const decodeCursor = Schema.decodeUnknownEither(LastfmCursor)

/** The cursor to go on from: the stored one if it is one, else a fresh pull up to `nowMs`. */
export const lastfmStartCursor = (stored: unknown, nowMs: number): LastfmCursor => {
  const decoded = decodeCursor(stored)
  return Either.isRight(decoded) ? decoded.right : { to: Math.floor(nowMs / 1000), page: 1, done: false }
}

/** The cursor after page `cursor.page` of `totalPages` was written. */
export const lastfmNextCursor = (cursor: LastfmCursor, totalPages: number): LastfmCursor => ({
  to: cursor.to,
  page: cursor.page + 1,
  done: cursor.page >= totalPages,
})

/** The request parameters of one page (besides `method`, `api_key` and `format`). */
export const lastfmPageParams = (username: string, cursor: LastfmCursor): Record<string, string> => ({
  user: username,
  limit: String(LASTFM_PAGE_SIZE),
  page: String(cursor.page),
  to: String(cursor.to),
  extended: "0",
})

/**
 * A Last.fm username as typed: trimmed; letters, digits, `_`, `-` and `.` (Last.fm's own rule is stricter, but
 * older accounts vary), 1 to 64 characters. Null when it cannot be one.
 */
export const lastfmUsername = (typed: string): string | null => {
  const trimmed = typed.trim()
  return /^[A-Za-z0-9_.-]{1,64}$/.test(trimmed) ? trimmed : null
}
