import { createHash } from "node:crypto"
import { Schema } from "effect"

/**
 * Scrobbling out (issue 26; contract "Listening history in and out", "Scrobbling out"): each listener may send their
 * completed non-skip plays to ListenBrainz and Last.fm, and a now-playing notice when a play starts. The wire shapes
 * of the settings routes and the pure rules of the submissions (payloads, Last.fm's signature, how an answer is
 * read, the retry delays) live here; the server owns the queue and the sending.
 */

export const SCROBBLE_PROVIDERS = ["listenbrainz", "lastfm"] as const
export const ScrobbleProvider = Schema.Literal(...SCROBBLE_PROVIDERS)
export type ScrobbleProvider = typeof ScrobbleProvider.Type

export const isScrobbleProvider = (value: string): value is ScrobbleProvider =>
  (SCROBBLE_PROVIDERS as ReadonlyArray<string>).includes(value)

/** A queued submission: the listen itself, or the now-playing notice sent when a play starts. */
export const ScrobbleKind = Schema.Literal("listen", "now_playing")
export type ScrobbleKind = typeof ScrobbleKind.Type

/** Where a listener's submissions to one provider stand (the settings page shows it). */
export class ScrobblerStatus extends Schema.Class<ScrobblerStatus>("ScrobblerStatus")({
  /** Completed plays waiting to be sent (new, or retrying after a failure). */
  queued: Schema.NonNegativeInt,
  /** Plays this provider has accepted from Tonearm. */
  sent: Schema.NonNegativeInt,
  last_sent_at: Schema.NullOr(Schema.DateTimeUtc),
  /** The latest failure, whatever it was (kept after later successes so it can be read). */
  last_error: Schema.NullOr(Schema.String),
  last_error_at: Schema.NullOr(Schema.DateTimeUtc),
  /**
   * The provider refused the token or session: nothing more is sent (the queue is kept) until a new one is given.
   */
  needs_auth: Schema.Boolean,
}) {}

/**
 * GET and PUT `/api/me/scrobblers/{provider}`. `token` is never the secret itself: a masked hint (its last four
 * characters) when one is stored, else null; `token_set` says whether one is.
 */
export class ScrobblerSettings extends Schema.Class<ScrobblerSettings>("ScrobblerSettings")({
  provider: ScrobbleProvider,
  enabled: Schema.Boolean,
  token: Schema.NullOr(Schema.String),
  token_set: Schema.Boolean,
  /** The provider account the session belongs to (Last.fm's user name), when known. */
  account: Schema.NullOr(Schema.String),
  /** False when the server cannot reach this provider for scrobbling (Last.fm without an API key and secret). */
  available: Schema.Boolean,
  /** Last.fm: the web page that asks the listener to allow Tonearm (append `&cb=<callback URL>`); else null. */
  auth_url: Schema.NullOr(Schema.String),
  status: ScrobblerStatus,
}) {}

const Secret = Schema.Trim.pipe(Schema.maxLength(512))

/**
 * PUT body: `enabled` switches sending on or off (off also drops what is still queued); `token` sets the secret
 * (ListenBrainz: the user token; Last.fm: a session key), null or "" removes it. Absent fields are left as they are.
 */
export const ScrobblerUpdate = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  token: Schema.optional(Schema.NullOr(Secret)),
})
export type ScrobblerUpdate = typeof ScrobblerUpdate.Type

/** POST `/api/me/scrobblers/lastfm/session`: the token Last.fm's web auth hands to the callback (`?token=`). */
export const LastfmSessionRequest = Schema.Struct({
  token: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(256)),
})
export type LastfmSessionRequest = typeof LastfmSessionRequest.Type

/** A secret as answers show it: its last four characters at most, never the whole. */
export const maskSecret = (secret: string): string => (secret.length >= 12 ? `…${secret.slice(-4)}` : "…")

// --- retries ---

/**
 * Delay before the next attempt after `attempts` failed ones: `baseMs` doubling, at most `maxMs`. With the shipped
 * 30 s base the first retry comes 30 s after the failure (the contract: within 2 minutes).
 */
export const scrobbleRetryDelayMs = (attempts: number, baseMs: number, maxMs: number): number =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, attempts - 1)))

// --- what is sent ---

/** One play as the providers are told of it. */
export interface ScrobbleTrack {
  readonly artist: string
  readonly title: string
  readonly album: string | null
  readonly album_artist: string | null
  readonly track_number: number | null
  readonly duration_ms: number
  readonly recording_mbid: string | null
  readonly release_mbid: string | null
  /** When the play started (ms since the epoch): the listen's time for both providers. */
  readonly started_at_ms: number
}

const seconds = (ms: number) => Math.floor(ms / 1000)
const present = (text: string | null): text is string => text !== null && text.trim() !== ""

/**
 * The body of `POST /1/submit-listens`: `single` with `listened_at` (the play's start, Unix seconds) for a listen,
 * `playing_now` without it for a now-playing notice.
 */
export const listenBrainzBody = (kind: ScrobbleKind, track: ScrobbleTrack, client: { readonly version: string }) => {
  const additional_info: Record<string, string | number> = {
    duration_ms: track.duration_ms,
    submission_client: "Tonearm",
    submission_client_version: client.version,
  }
  if (present(track.recording_mbid)) additional_info.recording_mbid = track.recording_mbid
  if (present(track.release_mbid)) additional_info.release_mbid = track.release_mbid
  if (track.track_number !== null) additional_info.tracknumber = track.track_number
  const track_metadata = {
    artist_name: track.artist,
    track_name: track.title,
    ...(present(track.album) ? { release_name: track.album } : {}),
    additional_info,
  }
  return kind === "listen"
    ? { listen_type: "single", payload: [{ listened_at: seconds(track.started_at_ms), track_metadata }] }
    : { listen_type: "playing_now", payload: [{ track_metadata }] }
}

/**
 * Last.fm's method signature: every parameter but `format` and `callback`, sorted by name, each name followed by its
 * value, then the shared secret; the MD5 of that (UTF-8) in lowercase hex.
 */
export const lastfmSignature = (params: Readonly<Record<string, string>>, secret: string): string =>
  createHash("md5")
    .update(
      Object.keys(params)
        .filter((name) => name !== "format" && name !== "callback")
        .sort()
        .map((name) => `${name}${params[name]}`)
        .join("") + secret,
      "utf8",
    )
    .digest("hex")

/** Parameters plus their `api_sig`, answered as JSON. */
export const signLastfm = (params: Readonly<Record<string, string>>, secret: string): Record<string, string> => ({
  ...params,
  api_sig: lastfmSignature(params, secret),
  format: "json",
})

/** The form of `track.scrobble` (a listen, `timestamp` = the play's start) or `track.updateNowPlaying`. */
export const lastfmTrackParams = (
  kind: ScrobbleKind,
  track: ScrobbleTrack,
  credentials: { readonly apiKey: string; readonly sessionKey: string },
): Record<string, string> => {
  const params: Record<string, string> = {
    method: kind === "listen" ? "track.scrobble" : "track.updateNowPlaying",
    api_key: credentials.apiKey,
    sk: credentials.sessionKey,
    artist: track.artist,
    track: track.title,
    duration: String(Math.round(track.duration_ms / 1000)),
  }
  if (kind === "listen") params.timestamp = String(seconds(track.started_at_ms))
  if (present(track.album)) params.album = track.album
  if (present(track.album_artist) && track.album_artist !== track.artist) params.albumArtist = track.album_artist
  if (track.track_number !== null) params.trackNumber = String(track.track_number)
  if (present(track.recording_mbid)) params.mbid = track.recording_mbid
  return params
}

/** `auth.getSession`: exchanges the token of the web auth callback for a session key. */
export const lastfmSessionParams = (token: string, apiKey: string): Record<string, string> => ({
  method: "auth.getSession",
  api_key: apiKey,
  token,
})

// --- reading the answers ---

/**
 * What became of one attempt: `sent`; `retry` (down, 5xx, 429, timeouts: try again later, after at least
 * `retryAfterMs` when the provider said so); `auth` (the token or session was refused: stop for this listener until
 * a new one is given); `rejected` (the provider will never take this one: drop it).
 */
export type ScrobbleOutcome =
  | { readonly _tag: "sent" }
  | { readonly _tag: "retry"; readonly message: string; readonly retryAfterMs?: number | undefined }
  | { readonly _tag: "auth"; readonly message: string }
  | { readonly _tag: "rejected"; readonly message: string }

const short = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 300)

const messageIn = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const { message, error } = body as { message?: unknown; error?: unknown }
  if (typeof message === "string") return message
  if (typeof error === "string") return error
  return undefined
}

/** A `Retry-After` or ListenBrainz `X-RateLimit-Reset-In` header, in ms. */
export const retryAfterMsOf = (headers: Readonly<Record<string, string | undefined>>): number | undefined => {
  const raw = headers["retry-after"] ?? headers["x-ratelimit-reset-in"]
  const value = raw === undefined ? Number.NaN : Number(raw)
  return Number.isFinite(value) && value >= 0 ? Math.min(value, 3600) * 1000 : undefined
}

/** ListenBrainz answers 200 `{status: "ok"}`; 401 a bad token; 400 a listen it will not take; 429 and 5xx later. */
export const readListenBrainzAnswer = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string | undefined>> = {},
): ScrobbleOutcome => {
  const said = messageIn(body)
  const message = short(`ListenBrainz answered ${status}${said === undefined ? "" : `: ${said}`}`)
  if (status >= 200 && status < 300) return { _tag: "sent" }
  if (status === 401 || status === 403) return { _tag: "auth", message }
  if (status === 429 || status >= 500 || status === 408)
    return { _tag: "retry", message, retryAfterMs: retryAfterMsOf(headers) }
  return { _tag: "rejected", message }
}

/**
 * Last.fm error codes (its API documentation): 9 invalid session key, 4 authentication failed, 14 and 15 an
 * unauthorised or expired token: the listener must connect again. 11 and 16 (offline, temporarily unavailable) and 29
 * (rate limit) pass. 10, 13 and 26 (the server's key or secret is wrong or suspended) pass too: the admin may fix it,
 * and nothing the listener did was wrong. Anything else (6 bad parameters, …) will never be taken.
 */
const LASTFM_AUTH_ERRORS = new Set([4, 9, 14, 15])
const LASTFM_TRANSIENT_ERRORS = new Set([8, 10, 11, 13, 16, 26, 29])

const lastfmErrorOf = (body: unknown): { code: number; message: string } | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const { error, message } = body as { error?: unknown; message?: unknown }
  return typeof error === "number" ? { code: error, message: typeof message === "string" ? message : "" } : undefined
}

/**
 * A `track.scrobble` / `track.updateNowPlaying` / `auth.getSession` answer: 200 with the method's object, or an
 * `{error, message}` object (with 200 or a 4xx/5xx status). A scrobble Last.fm "ignored" (too old, a filtered artist)
 * will never be taken either.
 */
export const readLastfmAnswer = (status: number, body: unknown): ScrobbleOutcome => {
  const error = lastfmErrorOf(body)
  if (error !== undefined) {
    const message = short(`Last.fm error ${error.code}${error.message === "" ? "" : `: ${error.message}`}`)
    if (LASTFM_AUTH_ERRORS.has(error.code)) return { _tag: "auth", message }
    if (LASTFM_TRANSIENT_ERRORS.has(error.code)) return { _tag: "retry", message }
    return { _tag: "rejected", message }
  }
  if (status === 429 || status >= 500 || status === 408) return { _tag: "retry", message: `Last.fm answered ${status}` }
  if (status < 200 || status >= 300) return { _tag: "rejected", message: `Last.fm answered ${status}` }
  const ignored = lastfmIgnoredOf(body)
  return ignored === undefined
    ? { _tag: "sent" }
    : { _tag: "rejected", message: short(`Last.fm ignored it: ${ignored}`) }
}

/** The reason of an ignored scrobble (`scrobbles["@attr"].ignored` > 0), else undefined. */
const lastfmIgnoredOf = (body: unknown): string | undefined => {
  const scrobbles = (body as { scrobbles?: { "@attr"?: { ignored?: unknown }; scrobble?: unknown } } | null)?.scrobbles
  const ignored = Number(scrobbles?.["@attr"]?.ignored ?? 0)
  if (!(ignored > 0)) return undefined
  const first = Array.isArray(scrobbles?.scrobble) ? scrobbles.scrobble[0] : scrobbles?.scrobble
  const reason = (first as { ignoredMessage?: { "#text"?: unknown; code?: unknown } } | undefined)?.ignoredMessage
  const text = typeof reason?.["#text"] === "string" && reason["#text"] !== "" ? reason["#text"] : undefined
  return text ?? `code ${String(reason?.code ?? "unknown")}`
}

/** The session of an `auth.getSession` answer. */
export const LastfmSession = Schema.Struct({
  session: Schema.Struct({ name: Schema.String, key: Schema.String.pipe(Schema.minLength(1)) }),
})
