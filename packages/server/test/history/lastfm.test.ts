import { createServer } from "node:http"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { afterAll, expect, layer } from "@effect/vitest"
import type { ImportStatus } from "@tonearm/core"
import { Context, Effect, Layer, Schedule } from "effect"
import { ENRICHMENT_DEFAULTS, type TonearmSettings } from "../../src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { ImportTuning, LastfmPullTuning } from "../../src/history/index.js"
import { HttpAppLive } from "../../src/main.js"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { fixtureLibrary } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { InProcessEngine, QuietLogs, TestServerLive, testConfig } from "../support/TestServer.js"
import { finished, type LibraryTrack, lbListen, libraryTracks, playsOf, startImport } from "./importSupport.js"
import { fakeLastfm, LASTFM_KEY, pageRequests, type Scrobble } from "./lastfmSupport.js"

const { root } = await fixtureLibrary()
const lastfmServer = await startFakeServer()
const lastfm = fakeLastfm(lastfmServer)
afterAll(() => lastfmServer.stop())

/** Last.fm's throttle in this file: every request to it starts at least this long after the previous one. */
const THROTTLE_MS = 120
const T0 = 1_600_000_000

const settings: Partial<TonearmSettings> = {
  libraryDir: root,
  enrichment: {
    ...ENRICHMENT_DEFAULTS,
    lastfm: { baseUrl: lastfmServer.url, apiKey: LASTFM_KEY, throttleMs: THROTTLE_MS },
    runDrains: false,
  },
}
const PullTuning = Layer.succeed(LastfmPullTuning, { retryBaseMs: 100, retryMaxMs: 400, maxAttempts: 5 })
const runnerTuning = (pollMs: number) =>
  Layer.succeed(ImportTuning, {
    batchSize: 2_000,
    staleMs: 1_500,
    pollMs,
    heartbeatMs: 300,
    progressMs: 100,
    catalogSlice: 5_000,
    restRatio: 0,
  })

/** `n` scrobbles of the library's tracks in turn, 5 minutes apart from `fromUts`, oldest first. */
const scrobblesOf = (tracks: ReadonlyArray<LibraryTrack>, n: number, fromUts: number): Array<Scrobble> =>
  Array.from({ length: n }, (_, i) => {
    const track = tracks[i % tracks.length]!
    return { artist: track.artist, title: track.title, album: track.album, uts: fromUts + i * 300 }
  })

const pull = (who: SignedIn, username: string) =>
  rawJson("POST", "/api/me/imports", { source: "lastfm_api", username }, who.token)

const startPull = (who: SignedIn, username: string) =>
  Effect.gen(function* () {
    const response = yield* pull(who, username)
    if (response.status !== 202) return yield* Effect.dieMessage(`pull answered ${response.status}: ${response.text}`)
    return (response.json as { id: string }).id
  })

/** The gaps, in ms, between consecutive arrivals. */
const gaps = (times: ReadonlyArray<number>) => times.slice(1).map((at, i) => at - times[i]!)

// The file's server polls for jobs rarely: it runs what is posted to it (a post wakes it), so the restart test's
// replicas are the only runners of the job they are given.
layer(
  Layer.mergeAll(AdminLive(), ScannedLive).pipe(
    Layer.provideMerge(TestServerLive(settings)),
    Layer.provide(Layer.mergeAll(PullTuning, runnerTuning(600_000))),
  ),
  { excludeTestServices: true, timeout: "180 seconds" },
)("Last.fm history pull", (it) => {
  it.effect(
    "pulls every page newest first, 200 a page up to a fixed `to`, throttled; now playing skipped; plays as imports",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const tracks = yield* libraryTracks
        const known = scrobblesOf(tracks, 440, T0)
        const unknown = Array.from({ length: 8 }, (_, i) => ({
          artist: "Nobody In This Library",
          title: `No Such Song ${i}`,
          album: null,
          uts: T0 - 10_000 - i * 60,
        }))
        const incomplete = [0, 1].map((i) => ({ artist: "Somebody", title: "", album: null, uts: T0 - 20_000 - i }))
        lastfm.users.set("rj", [...known, ...unknown, ...incomplete])
        lastfm.nowPlaying.set("rj", { ...known[0]!, uts: 0 })
        // A scrobble made while the pull runs is after its `to`: it does not shift the pages nor get imported.
        lastfm.onPage = (user, page) => {
          if (user === "rj" && page === 2)
            lastfm.users.get("rj")!.push({ ...known[1]!, uts: Math.floor(Date.now() / 1000) + 5 })
        }
        const before = Math.floor(Date.now() / 1000)
        const id = yield* startPull(alice, " RJ ")
        const status: ImportStatus = yield* finished(alice, id)
        lastfm.onPage = undefined
        expect(status).toMatchObject({
          source: "lastfm_api",
          state: "done",
          total: 450,
          matched: 440,
          unmatched: 10,
          duplicates: 0,
          message: null,
        })

        const requests = pageRequests(lastfmServer, "rj")
        expect(requests.map((request) => request.page)).toEqual([1, 2, 3])
        for (const request of requests) expect(request).toMatchObject({ limit: "200", extended: "0" })
        const to = Number(requests[0]!.to)
        expect(requests.every((request) => request.to === String(to))).toBe(true)
        expect(to).toBeGreaterThanOrEqual(before)
        expect(to).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
        // The throttle spaces the sends; arrival times at the fake (in this same busy process) can be late by tens
        // of ms (44 ms seen in CI), which shortens the gap after a late one. Unthrottled pages arrive a few ms
        // apart, so half the interval still tells one from the other.
        for (const gap of gaps(requests.map((request) => request.at)))
          expect(gap).toBeGreaterThanOrEqual(THROTTLE_MS / 2)
        const sent = lastfmServer.hits("/2.0/").filter((request) => request.query.get("user") === "RJ")
        expect(sent.every((request) => request.query.get("method") === "user.getrecenttracks")).toBe(true)

        const plays = yield* playsOf(alice.user.id)
        expect(plays).toHaveLength(440)
        expect(plays.map((play) => play.started_at.getTime())).toEqual(known.map((scrobble) => scrobble.uts * 1000))
        expect(plays.map((play) => play.track_id)).toEqual(known.map((_, i) => tracks[i % tracks.length]!.id))
        for (const play of plays)
          expect(play).toMatchObject({
            source: "import:lastfm_api",
            client_id: "import",
            pick_kind: null,
            device_class: null,
            skipped: false,
            duration_played_ms: play.track_duration_ms,
          })

        const unmatched = yield* alice.client.imports.unmatched({ path: { id: status.id }, urlParams: {} })
        expect(unmatched.items.filter((item) => item.reason === "no_match")).toHaveLength(8)
        expect(unmatched.items.filter((item) => item.reason === "incomplete")).toHaveLength(2)
        expect(unmatched.items.find((item) => item.title === "No Such Song 3")!.listened_at.epochMillis).toBe(
          (T0 - 10_000 - 3 * 60) * 1000,
        )
      }),
  )

  it.effect("a transient 500 and Last.fm's rate limit (error 29) are asked again with backoff; nothing doubles", () =>
    Effect.gen(function* () {
      const bob = yield* aUser("bob")
      const tracks = yield* libraryTracks
      lastfm.users.set("flaky", scrobblesOf(tracks, 250, T0))
      lastfm.script.set("flaky", [
        "page",
        { status: 500, body: "<html>Internal Server Error</html>" },
        { status: 429, body: { error: 29, message: "Rate Limit Exceded" } },
        { status: 200, body: { error: 29, message: "Rate Limit Exceded" } },
      ])
      const status = yield* finished(bob, yield* startPull(bob, "flaky"))
      expect(status).toMatchObject({ state: "done", total: 250, matched: 250, duplicates: 0, message: null })
      const requests = pageRequests(lastfmServer, "flaky")
      expect(requests.map((request) => request.page)).toEqual([1, 2, 2, 2, 2])
      // Backoff doubles from 100 ms: 100, 200, 400 between the tries of page 2.
      const [, ...retries] = gaps(requests.slice(1).map((request) => request.at))
      expect(gaps(requests.slice(1).map((request) => request.at))[0]).toBeGreaterThanOrEqual(95)
      expect(retries[0]).toBeGreaterThanOrEqual(195)
      expect(retries[1]).toBeGreaterThanOrEqual(395)
      expect(yield* playsOf(bob.user.id)).toHaveLength(250)
    }),
  )

  it.effect("a page that never answers fails the import after its tries; the pages before it stay imported", () =>
    Effect.gen(function* () {
      const carol = yield* aUser("carol")
      lastfm.users.set("down", scrobblesOf(yield* libraryTracks, 250, T0))
      lastfm.script.set("down", ["page", ...Array.from({ length: 5 }, () => ({ status: 503 }))])
      const status = yield* finished(carol, yield* startPull(carol, "down"))
      expect(status.state).toBe("failed")
      expect(status.message).toContain("Last.fm did not answer page 2 after 5 tries")
      expect(status).toMatchObject({ total: 200, matched: 200 })
      expect(yield* playsOf(carol.user.id)).toHaveLength(200)
    }),
  )

  it.effect("an unknown Last.fm user fails the job with a clear message; a private one says so", () =>
    Effect.gen(function* () {
      const dave = yield* aUser("dave")
      const unknown = yield* finished(dave, yield* startPull(dave, "ghost"))
      expect(unknown).toMatchObject({ state: "failed", total: 0, message: "Last.fm has no user named ghost" })
      lastfm.users.set("hidden", [])
      lastfm.script.set("hidden", [
        { status: 200, body: { error: 17, message: "Login: User required to be logged in" } },
      ])
      const hidden = yield* finished(dave, yield* startPull(dave, "hidden"))
      expect(hidden.state).toBe("failed")
      expect(hidden.message).toContain("hidden's Last.fm listening history is private")
      expect(yield* playsOf(dave.user.id)).toHaveLength(0)
    }),
  )

  it.effect(
    "the admin's Last.fm key wins over the configured one; a key Last.fm refuses (403, error 10) fails at once",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const lin = yield* aUser("lin")
        lastfm.users.set("keyed", scrobblesOf(yield* libraryTracks, 3, T0))
        const setKey = (key: string) =>
          raw("PATCH", "/api/admin/tag-sources/lastfm", { body: JSON.stringify({ api_key: key }), token: admin.token })
        expect((yield* setKey("not-the-key")).status).toBe(200)
        const refused = yield* finished(lin, yield* startPull(lin, "keyed"))
        expect(refused.state).toBe("failed")
        expect(refused.message).toBe(
          "Last.fm refused the request (Last.fm error 10: Invalid API key - You must be granted a valid key by last.fm)",
        )
        // Not retried: one request.
        expect(pageRequests(lastfmServer, "keyed")).toHaveLength(1)
        // Cleared, the configured key is used again.
        expect((yield* setKey("")).status).toBe(200)
        expect(yield* finished(lin, yield* startPull(lin, "keyed"))).toMatchObject({ state: "done", matched: 3 })
      }),
  )

  it.effect("an empty Last.fm history is done with nothing; a single scrobble (an object, not a list) is read", () =>
    Effect.gen(function* () {
      const erin = yield* aUser("erin")
      lastfm.users.set("quiet", [])
      expect(yield* finished(erin, yield* startPull(erin, "quiet"))).toMatchObject({ state: "done", total: 0 })
      lastfm.users.set("once", scrobblesOf(yield* libraryTracks, 1, T0))
      expect(yield* finished(erin, yield* startPull(erin, "once"))).toMatchObject({ state: "done", matched: 1 })
    }),
  )

  it.effect("a bad request is 400 invalid_request and makes no job", () =>
    Effect.gen(function* () {
      const fay = yield* aUser("fay")
      for (const body of [
        { source: "lastfm_api", username: "two words" },
        { source: "lastfm_api", username: "a/../b" },
        { source: "lastfm_api" },
        { source: "lastfm_api", username: "" },
      ]) {
        const response = yield* rawJson("POST", "/api/me/imports", body, fay.token)
        expect(response.status).toBe(400)
        expect((response.json as { error: { code: string } }).error.code).toBe("invalid_request")
      }
      expect((yield* fay.client.imports.list({ urlParams: {} })).items).toHaveLength(0)
    }),
  )

  it.effect("idempotence: a ListenBrainz copy of the same scrobbles adds nothing, in either order", () =>
    Effect.gen(function* () {
      const tracks = yield* libraryTracks
      const scrobbles = scrobblesOf(tracks, 120, T0 + 5_000_000)
      lastfm.users.set("twice", scrobbles)
      const export_ = JSON.stringify(scrobbles.map((s) => lbListen(s.artist, s.title, s.uts, s.album)))

      const gus = yield* aUser("gus")
      expect(yield* finished(gus, yield* startImport(gus, export_, "listenbrainz_export"))).toMatchObject({
        matched: 120,
        duplicates: 0,
      })
      expect(yield* finished(gus, yield* startPull(gus, "twice"))).toMatchObject({
        state: "done",
        total: 120,
        matched: 120,
        duplicates: 120,
      })
      expect(yield* playsOf(gus.user.id)).toHaveLength(120)

      const hal = yield* aUser("hal")
      expect(yield* finished(hal, yield* startPull(hal, "twice"))).toMatchObject({ matched: 120, duplicates: 0 })
      expect(yield* finished(hal, yield* startImport(hal, export_, "listenbrainz_export"))).toMatchObject({
        matched: 120,
        duplicates: 120,
      })
      const plays = yield* playsOf(hal.user.id)
      expect(plays).toHaveLength(120)
      // The plays are the Last.fm import's; the copy added none.
      expect(new Set(plays.map((play) => play.source))).toEqual(new Set(["import:lastfm_api"]))
    }),
  )

  it.effect("another user's Last.fm import is 404 on every import route", () =>
    Effect.gen(function* () {
      const ivy = yield* aUser("ivy")
      const jon = yield* aUser("jon")
      lastfm.users.set("ivy-lfm", scrobblesOf(yield* libraryTracks, 3, T0))
      const id = yield* startPull(ivy, "ivy-lfm")
      yield* finished(ivy, id)
      for (const path of [`/api/me/imports/${id}`, `/api/me/imports/${id}/unmatched`]) {
        const response = yield* raw("GET", path, { token: jon.token })
        expect(response.status).toBe(404)
        expect((response.json as { error: { code: string } }).error.code).toBe("not_found")
      }
      expect((yield* jon.client.imports.list({ urlParams: {} })).items).toHaveLength(0)
    }),
  )

  it.scoped("a restart in the middle resumes at the next page: every page fetched once more at most, no doubles", () =>
    Effect.gen(function* () {
      const kim = yield* aUser("kim")
      const sql = yield* SqlClient.SqlClient
      const url = (yield* PgClient.PgClient).config.url!
      const tracks = yield* libraryTracks
      const scrobbles = scrobblesOf(tracks, 520, T0 + 9_000_000)
      lastfm.users.set("longtime", scrobbles)
      lastfm.hold = { user: "longtime", page: 2, release: () => {}, held: false }

      /** Another server process on the file's database, running the jobs it is given (or finds). */
      const replica = Effect.gen(function* () {
        const app = HttpApiBuilder.serve().pipe(
          Layer.provide(HttpAppLive),
          Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
          Layer.provide(makeDatabaseLive(pgClientLayer(url))),
          Layer.provide(testConfig(settings)),
          Layer.provide(QuietLogs),
          Layer.provide(InProcessEngine),
          Layer.provide(Layer.mergeAll(PullTuning, runnerTuning(200))),
        )
        const server = Context.get(yield* Layer.build(app), HttpServer.HttpServer)
        return server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : "http://unix"
      })
      const stateOf = (id: string) =>
        Effect.map(
          sql<{
            state: string
            total: number
            cursor: unknown
          }>`SELECT state, total, cursor FROM imports WHERE id = ${id}`,
          (rows) => rows[0]!,
        )

      // The first process takes the job, imports page 1, and stops while page 2 is on the wire.
      const id = yield* Effect.scoped(
        Effect.gen(function* () {
          const first = yield* replica
          const response = yield* Effect.promise(() =>
            fetch(`${first}/api/me/imports`, {
              method: "POST",
              headers: { authorization: `Bearer ${kim.token}`, "content-type": "application/json" },
              body: JSON.stringify({ source: "lastfm_api", username: "longtime" }),
            }),
          )
          expect(response.status).toBe(202)
          const { id } = (yield* Effect.promise(() => response.json())) as { id: string }
          yield* Effect.gen(function* () {
            const row = yield* stateOf(id)
            if (!(lastfm.hold?.held === true && row.total === 200)) return yield* Effect.fail("not yet")
          }).pipe(Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 600 }), Effect.orDie)
          return id
        }),
      )
      const stopped = yield* stateOf(id)
      expect(stopped).toMatchObject({ state: "queued", total: 200 })
      expect(stopped.cursor).toMatchObject({ source: { page: 2, done: false } })
      lastfm.hold.release()

      // The next process resumes it from its cursor.
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* replica
          const status = yield* finished(kim, id)
          expect(status).toMatchObject({ state: "done", total: 520, matched: 520, duplicates: 0 })
        }),
      )
      lastfm.hold = undefined
      const requests = pageRequests(lastfmServer, "longtime")
      expect(requests.map((request) => request.page)).toEqual([1, 2, 2, 3])
      expect(new Set(requests.map((request) => request.to)).size).toBe(1)
      const plays = yield* playsOf(kim.user.id)
      expect(plays).toHaveLength(520)
      expect(new Set(plays.map((play) => play.started_at.getTime())).size).toBe(520)
    }),
  )
})
