import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import type { TrackId } from "@tonearm/core"
import { DateTime, Effect, Layer, Logger, LogLevel } from "effect"
import { HttpAppLive } from "../../src/main.js"
import { finished, libraryTracks as importTracks, lbListen, startImport } from "../history/importSupport.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { PASSWORD } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { fixtureLibrary } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { InProcessEngine, testConfig } from "../support/TestServer.js"
import {
  bodyOf,
  endPlay,
  eventually,
  expectedSignature,
  fakeLastfm,
  fakeListenBrainz,
  GOOD_LASTFM_TOKEN,
  LASTFM_API_KEY,
  LASTFM_SECRET,
  LASTFM_SESSION,
  listen,
  listenBrainzPlans,
  olderAccount,
  queueOf,
  scrobbleSettings,
  someTracks,
  startPlay,
  tokenOf,
} from "./support.js"

const { root } = await fixtureLibrary()
const listenbrainz = await startFakeServer(fakeListenBrainz)
const lastfm = await startFakeServer(fakeLastfm)
afterAll(() => Promise.all([listenbrainz.stop(), lastfm.stop()]))

/** Every line the server logs, at every level: secrets must never be among them. */
const logged: Array<string> = []
const CapturedLogs = Layer.mergeAll(
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message, cause }) => {
      logged.push(`${JSON.stringify(message)} ${String(cause)}`)
    }),
  ),
  Logger.minimumLogLevel(LogLevel.All),
)

// The test server of TestServer.ts, with every log line captured instead of quietened.
const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provideMerge(HttpAppLive),
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(
    testConfig({ libraryDir: root, ...scrobbleSettings({ listenbrainz: listenbrainz.url, lastfm: lastfm.url }) }),
  ),
  Layer.provide(CapturedLogs),
  Layer.provide(InProcessEngine),
)

/** Every secret any test hands the server, checked against the logs at the end. */
const secrets = new Set<string>([LASTFM_SECRET, LASTFM_SESSION.key, GOOD_LASTFM_TOKEN])
let tokens = 0
const lbToken = () => {
  const token = `lb-user-token-${++tokens}-${Math.random().toString(36).slice(2, 12)}`
  secrets.add(token)
  return token
}

const submissionsOf = (token: string) => listenbrainz.hits("/1/submit-listens").filter((hit) => tokenOf(hit) === token)
const listensOf = (token: string) => submissionsOf(token).filter((hit) => bodyOf(hit).listen_type === "single")

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(ServerLive)), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("scrobbling out", (it) => {
  it.effect("settings: off by default, the token never comes back, an unknown provider is 404, per listener", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const initial = yield* alice.client.scrobblers.get({ path: { provider: "listenbrainz" } })
      expect(initial).toMatchObject({ provider: "listenbrainz", enabled: false, token: null, token_set: false })
      expect(initial.status).toMatchObject({ queued: 0, sent: 0, needs_auth: false, last_error: null })

      const token = lbToken()
      const saved = yield* alice.client.scrobblers.update({
        path: { provider: "listenbrainz" },
        payload: { enabled: true, token },
      })
      expect(saved).toMatchObject({ enabled: true, token_set: true, available: true })
      expect(saved.token).toBe(`…${token.slice(-4)}`)
      // Over the wire too: no answer holds the secret.
      const wire = yield* raw("GET", "/api/me/scrobblers/listenbrainz", { token: alice.token })
      expect(wire.status).toBe(200)
      expect(wire.text).not.toContain(token)
      const put = yield* rawJson("PUT", "/api/me/scrobblers/listenbrainz", { enabled: true }, alice.token)
      expect(put.text).not.toContain(token)
      expect(put.json).toMatchObject({ enabled: true, token_set: true })

      // Another listener's settings are their own: bob sees nothing of alice's and cannot reach them.
      expect(yield* bob.client.scrobblers.get({ path: { provider: "listenbrainz" } })).toMatchObject({
        enabled: false,
        token_set: false,
      })
      yield* bob.client.scrobblers.update({
        path: { provider: "listenbrainz" },
        payload: { enabled: false, token: null },
      })
      expect(yield* alice.client.scrobblers.get({ path: { provider: "listenbrainz" } })).toMatchObject({
        enabled: true,
        token_set: true,
      })

      // Last.fm offers the web auth page with the configured key; nothing is connected yet.
      const lfm = yield* alice.client.scrobblers.get({ path: { provider: "lastfm" } })
      expect(lfm).toMatchObject({ available: true, token_set: false, account: null })
      expect(lfm.auth_url).toBe(`http://lastfm.test/api/auth/?api_key=${LASTFM_API_KEY}`)

      const unknown = yield* raw("GET", "/api/me/scrobblers/spotify", { token: alice.token })
      expect(unknown.status).toBe(404)
      expect(unknown.json).toMatchObject({ error: { code: "not_found" } })
      const unknownPut = yield* rawJson("PUT", "/api/me/scrobblers/spotify", { enabled: true }, alice.token)
      expect(unknownPut.status).toBe(404)
      const badBody = yield* rawJson("PUT", "/api/me/scrobblers/listenbrainz", { enabled: "yes" }, alice.token)
      expect(badBody.status).toBe(400)
      expect(badBody.json).toMatchObject({ error: { code: "invalid_request" } })
      const anonymous = yield* raw("GET", "/api/me/scrobblers/listenbrainz")
      expect(anonymous.status).toBe(401)

      // Removing the token: nothing is queued any more.
      const cleared = yield* alice.client.scrobblers.update({
        path: { provider: "listenbrainz" },
        payload: { token: "" },
      })
      expect(cleared).toMatchObject({ enabled: true, token_set: false, token: null })
    }),
  )

  it.effect("ListenBrainz: now playing on start, the completed play once with its exact payload; skips never", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("lb")
      const token = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      const [track, skippedTrack, offlineTrack] = yield* someTracks(3)

      const { id, startedAt } = yield* listen(alice, track!.id)
      yield* eventually(
        Effect.sync(() => listensOf(token).length === 1),
        "the listen",
      )
      const submissions = submissionsOf(token)
      const nowPlaying = submissions.find((hit) => bodyOf(hit).listen_type === "playing_now")!
      const single = listensOf(token)[0]!
      expect(nowPlaying.headers.authorization).toBe(`Token ${token}`)
      expect(nowPlaying.headers["content-type"]).toContain("application/json")
      const metadata = {
        artist_name: track!.artist,
        track_name: track!.title,
        release_name: track!.album,
        additional_info: expect.objectContaining({
          duration_ms: 200_000,
          submission_client: "Tonearm",
          submission_client_version: expect.any(String),
          ...(track!.mbid === null ? {} : { recording_mbid: track!.mbid }),
          ...(track!.track_number === null ? {} : { tracknumber: track!.track_number }),
        }),
      }
      expect(bodyOf(nowPlaying)).toEqual({ listen_type: "playing_now", payload: [{ track_metadata: metadata }] })
      expect(single.headers.authorization).toBe(`Token ${token}`)
      expect(bodyOf(single)).toEqual({
        listen_type: "single",
        payload: [{ listened_at: Math.floor(startedAt.getTime() / 1000), track_metadata: metadata }],
      })

      // Reporting the end again changes nothing: at most one submission per play.
      yield* endPlay(alice, id, 150_000)
      // A skip (10 s of 200 s) is never sent; play_skipped neither.
      const skip = yield* startPlay(alice, skippedTrack!.id)
      yield* endPlay(alice, skip, 10_000)
      const forced = yield* startPlay(alice, skippedTrack!.id)
      yield* alice.client.plays.report({
        payload: { type: "play_skipped", play_event_id: forced, position_ms: 190_000 },
      })
      // A complete offline play is sent with its own start (the account is older than it: times are clamped to it).
      yield* olderAccount(alice.user.id)
      const at = new Date(Date.now() - 3_600_000)
      yield* alice.client.plays.report({
        payload: {
          type: "play_offline",
          track_id: offlineTrack!.id,
          client_id: "phone",
          at: DateTime.unsafeMake(at),
          duration_played_ms: 180_000,
        },
      })
      yield* eventually(
        Effect.sync(() => listensOf(token).length === 2),
        "the offline listen",
      )
      yield* Effect.sleep("600 millis")
      const listens = listensOf(token).map((hit) => bodyOf(hit).payload as Array<Record<string, unknown>>)
      expect(listens).toHaveLength(2)
      expect(listens[1]![0]!.listened_at).toBe(Math.floor(at.getTime() / 1000))
      expect((listens[1]![0]!.track_metadata as { track_name: string }).track_name).toBe(offlineTrack!.title)
      const status = yield* alice.client.scrobblers.get({ path: { provider: "listenbrainz" } })
      expect(status.status).toMatchObject({ queued: 0, sent: 2, last_error: null, needs_auth: false })
      expect(status.status.last_sent_at).not.toBeNull()
    }),
  )

  it.effect("Last.fm: the callback token becomes a signed session; scrobbles and now playing are signed", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("lfm")
      const refused = yield* rawJson("POST", "/api/me/scrobblers/lastfm/session", { token: "not-issued" }, alice.token)
      expect(refused.status).toBe(400)
      expect(refused.json).toMatchObject({ error: { code: "invalid_token" } })

      const connected = yield* alice.client.scrobblers.lastfmSession({ payload: { token: GOOD_LASTFM_TOKEN } })
      expect(connected).toMatchObject({ provider: "lastfm", enabled: true, token_set: true, account: "lfm-listener" })
      expect(JSON.stringify(connected)).not.toContain(LASTFM_SESSION.key)
      const exchange = lastfm.requests.find((hit) => new URLSearchParams(hit.body).get("token") === GOOD_LASTFM_TOKEN)!
      const sent = new URLSearchParams(exchange.body)
      expect(exchange.method).toBe("POST")
      expect(Object.fromEntries(sent)).toEqual({
        method: "auth.getSession",
        api_key: LASTFM_API_KEY,
        token: GOOD_LASTFM_TOKEN,
        api_sig: expectedSignature(sent),
        format: "json",
      })

      const [track] = yield* someTracks(1, 3)
      const before = lastfm.requests.length
      const { startedAt } = yield* listen(alice, track!.id)
      const scrobbles = () =>
        lastfm.requests
          .slice(before)
          .map((hit) => new URLSearchParams(hit.body))
          .filter((params) => params.get("sk") === LASTFM_SESSION.key)
      yield* eventually(
        Effect.sync(() => scrobbles().some((params) => params.get("method") === "track.scrobble")),
        "the scrobble",
      )
      const nowPlaying = scrobbles().find((params) => params.get("method") === "track.updateNowPlaying")!
      const scrobble = scrobbles().find((params) => params.get("method") === "track.scrobble")!
      const common = {
        api_key: LASTFM_API_KEY,
        sk: LASTFM_SESSION.key,
        artist: track!.artist,
        track: track!.title,
        album: track!.album,
        duration: "200",
        format: "json",
        ...(track!.track_number === null ? {} : { trackNumber: String(track!.track_number) }),
        ...(track!.mbid === null ? {} : { mbid: track!.mbid }),
        ...(track!.album_artist !== track!.artist ? { albumArtist: track!.album_artist } : {}),
      }
      expect(Object.fromEntries(nowPlaying)).toEqual({
        ...common,
        method: "track.updateNowPlaying",
        api_sig: expectedSignature(nowPlaying),
      })
      expect(Object.fromEntries(scrobble)).toEqual({
        ...common,
        method: "track.scrobble",
        timestamp: String(Math.floor(startedAt.getTime() / 1000)),
        api_sig: expectedSignature(scrobble),
      })
      yield* eventually(
        Effect.map(alice.client.scrobblers.get({ path: { provider: "lastfm" } }), (view) => view.status.sent === 1),
        "the sent count",
      )
    }),
  )

  it.effect("a Subsonic scrobble (submission=true) is sent like any completed play", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("sub")
      const token = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      const [track] = yield* someTracks(1, 4)
      yield* olderAccount(alice.user.id)
      const at = Date.now() - 600_000
      const params = new URLSearchParams({
        u: alice.user.username,
        p: PASSWORD,
        c: "DSub",
        v: "1.16.1",
        f: "json",
        id: track!.id,
        time: String(at),
        submission: "true",
      })
      const answer = yield* raw("GET", `/rest/scrobble?${params}`)
      expect(answer.status).toBe(200)
      yield* eventually(
        Effect.sync(() => listensOf(token).length === 1),
        "the Subsonic play",
      )
      const payload = bodyOf(listensOf(token)[0]!).payload as Array<{ listened_at: number }>
      expect(payload[0]!.listened_at).toBe(Math.floor(at / 1000))
    }),
  )

  it.effect("a failed submission is retried with backoff and delivered once; the status shows the failure", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("retry")
      const token = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      const [track] = yield* someTracks(1, 5)
      // The fake answers 503 twice, then takes it.
      listenBrainzPlans.set(token, [503, 503])
      yield* Effect.sleep("50 millis")
      const id = yield* startPlay(alice, track!.id)
      yield* eventually(
        Effect.sync(() => submissionsOf(token).length >= 1),
        "the now-playing notice",
      )
      // The failed now-playing notice is not retried; the listen then fails once more before it is taken.
      yield* endPlay(alice, id, 120_000)
      const status = alice.client.scrobblers.get({ path: { provider: "listenbrainz" } })
      yield* eventually(
        Effect.map(status, (view) => view.status.last_error !== null),
        "a failed attempt",
      )
      expect((yield* status).status.last_error).toContain("503")
      yield* eventually(
        Effect.map(queueOf(alice.user.id), (rows) => rows.some((row) => row.kind === "listen" && row.state === "sent")),
        "the listen delivered",
      )
      yield* Effect.sleep("800 millis")
      const submissions = submissionsOf(token)
      const playing = submissions.filter((hit) => bodyOf(hit).listen_type === "playing_now")
      const singles = submissions.filter((hit) => bodyOf(hit).listen_type === "single")
      expect(playing).toHaveLength(1)
      // One failed attempt of the listen, then the delivery: never two deliveries.
      expect(singles).toHaveLength(2)
      // The retry waited for the backoff (300 ms base; the provider pause is the same).
      expect(singles[1]!.at - singles[0]!.at).toBeGreaterThanOrEqual(250)
      const rows = (yield* queueOf(alice.user.id)).filter((row) => row.kind === "listen")
      expect(rows).toEqual([expect.objectContaining({ state: "sent", attempts: 2 })])
    }),
  )

  it.effect("a refused token stops sending for that listener, keeps the queue, and a new token resumes it", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("auth")
      const token = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      listenBrainzPlans.set(token, [401, 401, 401, 401, 401])
      const [first, second] = yield* someTracks(2, 6)
      const at = (minutes: number) => DateTime.unsafeMake(Date.now() - minutes * 60_000)
      const offline = (trackId: TrackId, minutes: number) =>
        alice.client.plays.report({
          payload: {
            type: "play_offline",
            track_id: trackId,
            client_id: "p",
            at: at(minutes),
            duration_played_ms: 150_000,
          },
        })
      yield* offline(first!.id, 30)
      yield* eventually(
        Effect.map(
          alice.client.scrobblers.get({ path: { provider: "listenbrainz" } }),
          (view) => view.status.needs_auth,
        ),
        "the refusal",
      )
      yield* offline(second!.id, 20)
      yield* Effect.sleep("700 millis")
      // Only the one attempt: nothing more goes out while the token is refused.
      expect(submissionsOf(token)).toHaveLength(1)
      const stuck = yield* alice.client.scrobblers.get({ path: { provider: "listenbrainz" } })
      expect(stuck.status).toMatchObject({ needs_auth: true, queued: 2 })
      expect(stuck.status.last_error).toContain("401")

      const fresh = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { token: fresh } })
      yield* eventually(
        Effect.sync(() => listensOf(fresh).length === 2),
        "both listens with the new token",
      )
      // The fake has the second listen a moment before the server records it as sent.
      const resumedStatus = alice.client.scrobblers.get({ path: { provider: "listenbrainz" } })
      yield* eventually(
        Effect.map(resumedStatus, (view) => view.status.queued === 0),
        "the queue to be recorded as sent",
      )
      expect((yield* resumedStatus).status).toMatchObject({ needs_auth: false, queued: 0, sent: 2 })
    }),
  )

  it.effect("switching a provider off stops it at once: what is still queued is never sent", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("off")
      const token = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      // Down for a while: the listens wait in the queue, retrying.
      listenBrainzPlans.set(token, [503, 503, 503, 503, 503, 503, 503, 503])
      const tracks = yield* someTracks(3, 8)
      for (const [index, track] of tracks.entries())
        yield* alice.client.plays.report({
          payload: {
            type: "play_offline",
            track_id: track.id,
            client_id: "p",
            at: DateTime.unsafeMake(Date.now() - (index + 1) * 600_000),
            duration_played_ms: 150_000,
          },
        })
      yield* eventually(
        Effect.sync(() => submissionsOf(token).length >= 1),
        "a first attempt",
      )
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: false } })
      const attempts = submissionsOf(token).length
      listenBrainzPlans.set(token, [])
      yield* Effect.sleep("2500 millis")
      // At most the one attempt that was already on its way.
      expect(submissionsOf(token).length).toBeLessThanOrEqual(attempts + 1)
      const rows = yield* queueOf(alice.user.id)
      expect(rows.filter((row) => row.state === "pending")).toEqual([])
      // Off, new plays are not queued either.
      yield* listen(alice, tracks[0]!.id)
      expect((yield* queueOf(alice.user.id)).length).toBe(rows.length)
    }),
  )

  it.effect("imported plays are never sent", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("import")
      const token = lbToken()
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      const tracks = (yield* importTracks).slice(0, 3)
      const base = Math.floor(Date.now() / 1000) - 86_400
      const file = tracks
        .map((track, index) => JSON.stringify(lbListen(track.artist, track.title, base + index * 600)))
        .join("\n")
      const importId = yield* startImport(alice, file, "listenbrainz_export")
      const status = yield* finished(alice, importId)
      expect(status.state).toBe("done")
      const sql = yield* SqlClient.SqlClient
      const [imported] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM play_events WHERE user_id = ${alice.user.id} AND client_id = 'import'`
      expect(imported!.n).toBeGreaterThan(0)
      yield* Effect.sleep("500 millis")
      expect(yield* queueOf(alice.user.id)).toEqual([])
      expect(submissionsOf(token)).toEqual([])
    }),
  )

  it.effect("no secret ever reaches the logs", () =>
    Effect.sync(() => {
      expect(logged.length).toBeGreaterThan(0)
      for (const secret of secrets) expect(logged.filter((line) => line.includes(secret))).toEqual([])
    }),
  )
})
