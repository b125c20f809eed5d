import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { type PlayEventId, TrackId } from "@tonearm/core"
import { Effect, Redacted } from "effect"
import { ENRICHMENT_DEFAULTS, type ScrobblingSettings, type TonearmSettings } from "../../src/config/TonearmConfig.js"
import type { SignedIn } from "../support/accounts.js"
import type { FakeRequest, FakeServer } from "../support/fakeServer.js"

export const LASTFM_API_KEY = "lastfm-api-key-0123456789"
export const LASTFM_SECRET = "lastfm-shared-secret-abcdef0123"
/** The auth token the fake Last.fm accepts, and the session it answers for it. */
export const GOOD_LASTFM_TOKEN = "callback-token-good-0001"
export const LASTFM_SESSION = { name: "lfm-listener", key: "lastfm-session-key-9f8e7d6c5b" }

/** Settings aimed at the fakes: small throttles, quick retries and polls; the enrichment drains off. */
export const scrobbleSettings = (
  urls: { readonly listenbrainz: string; readonly lastfm: string },
  overrides: Partial<ScrobblingSettings> = {},
): Partial<TonearmSettings> => ({
  enrichment: {
    ...ENRICHMENT_DEFAULTS,
    listenbrainz: { baseUrl: urls.listenbrainz, apiKey: null, throttleMs: 5 },
    lastfm: { baseUrl: urls.lastfm, apiKey: LASTFM_API_KEY, throttleMs: 5 },
    requestTimeoutMs: 2_000,
    runDrains: false,
  },
  scrobbling: {
    lastfmSharedSecret: Redacted.make(LASTFM_SECRET),
    lastfmAuthUrl: "http://lastfm.test/api/auth/",
    retryBaseMs: 300,
    retryMaxMs: 2_000,
    pollMs: 100,
    runSender: true,
    ...overrides,
  },
})

/** Last.fm's signature, worked out here independently of the server's code. */
export const expectedSignature = (params: URLSearchParams) => {
  const names = [...params.keys()].filter((name) => name !== "format" && name !== "callback" && name !== "api_sig")
  names.sort()
  const text = names.map((name) => `${name}${params.get(name)}`).join("") + LASTFM_SECRET
  return createHash("md5").update(text, "utf8").digest("hex")
}

/**
 * Per-token plans of the fake ListenBrainz: the statuses to answer in turn (then 200). Requests are recorded
 * by the FakeServer; a test picks its own by its listener's token.
 */
export const listenBrainzPlans = new Map<string, Array<number>>()

export const fakeListenBrainz = (server: FakeServer) => {
  server.on("POST", "/1/submit-listens", (request) => {
    const token = (request.headers.authorization ?? "").replace(/^Token /, "")
    const plan = listenBrainzPlans.get(token)
    const status = plan?.shift() ?? 200
    if (status === 200) return { body: { status: "ok" } }
    if (status === 401) return { status, body: { code: 401, error: "Invalid authorization token." } }
    return { status, body: { code: status, error: "Something went wrong" } }
  })
}

/** A fake Last.fm 2.0 endpoint that checks every signature and answers like Last.fm. */
export const fakeLastfm = (server: FakeServer) => {
  server.on("POST", "/2.0/", (request) => {
    const params = new URLSearchParams(request.body)
    if (params.get("api_key") !== LASTFM_API_KEY)
      return { status: 403, body: { error: 10, message: "Invalid API key" } }
    if (params.get("api_sig") !== expectedSignature(params))
      return { status: 403, body: { error: 13, message: "Invalid method signature supplied" } }
    switch (params.get("method")) {
      case "auth.getSession":
        return params.get("token") === GOOD_LASTFM_TOKEN
          ? { body: { session: { ...LASTFM_SESSION, subscriber: 0 } } }
          : { status: 403, body: { error: 14, message: "Unauthorized Token - This token has not been issued" } }
      case "track.scrobble":
        if (params.get("sk") !== LASTFM_SESSION.key)
          return { status: 403, body: { error: 9, message: "Invalid session key" } }
        return { body: { scrobbles: { "@attr": { accepted: 1, ignored: 0 }, scrobble: {} } } }
      case "track.updateNowPlaying":
        return { body: { nowplaying: {} } }
      default:
        return { status: 400, body: { error: 3, message: "Invalid Method" } }
    }
  })
}

export const tokenOf = (request: FakeRequest) => (request.headers.authorization ?? "").replace(/^Token /, "")
export const bodyOf = (request: FakeRequest) => JSON.parse(request.body) as Record<string, unknown>

/** What the providers should be told of a track, read from the catalogue. */
export interface TrackFacts {
  readonly id: TrackId
  readonly title: string
  readonly artist: string
  readonly album: string
  readonly album_artist: string
  readonly duration_ms: number
  readonly track_number: number | null
  readonly mbid: string | null
}

/** `count` tracks of the library, each set to 200 s so a 2-minute play completes and a 10-second one is a skip. */
export const someTracks = (count: number, offset = 0) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Omit<TrackFacts, "id"> & { id: string }>`
      SELECT t.id, t.title, t.artist_display AS artist, al.title AS album, al.artist_display AS album_artist,
             t.duration_ms, t.track_number, t.mbid
      FROM tracks t JOIN albums al ON al.id = t.album_id ORDER BY t.path OFFSET ${offset} LIMIT ${count}`
    for (const row of rows) yield* sql`UPDATE tracks SET duration_ms = 200000 WHERE id = ${row.id}`
    return rows.map((row): TrackFacts => ({ ...row, id: TrackId.make(row.id), duration_ms: 200_000 }))
  })

export const startPlay = (who: SignedIn, track: TrackId) =>
  Effect.map(
    who.client.plays.report({ payload: { type: "play_started", track_id: track, client_id: "web-test" } }),
    (created) => (created as { play_event_id: PlayEventId }).play_event_id,
  )

export const endPlay = (who: SignedIn, id: PlayEventId, played: number) =>
  who.client.plays.report({ payload: { type: "play_ended", play_event_id: id, duration_played_ms: played } })

/** A live play that ends after `played` ms; answers its id and when it started (the server's row). */
export const listen = (who: SignedIn, track: TrackId, played = 120_000) =>
  Effect.gen(function* () {
    const id = yield* startPlay(who, track)
    yield* endPlay(who, id, played)
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ started_at: Date }>`SELECT started_at FROM play_events WHERE id = ${id}`
    return { id, startedAt: row!.started_at }
  })

/** Waits until `check` holds (real time: the sender runs on its own). */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string, timeoutMs = 20_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (yield* check) return
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** The queue rows of a listener, by provider, kind and state. */
export const queueOf = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ provider: string; kind: string; state: string; attempts: number; play_event_id: string }>`
      SELECT provider, kind, state, attempts, play_event_id FROM scrobble_queue WHERE user_id = ${userId}
      ORDER BY created_at`,
  )

/** Back-dates an account, so a play reported an hour ago is not clamped to its creation. */
export const olderAccount = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE users SET created_at = created_at - interval '1 day' WHERE id = ${userId}`,
  )
