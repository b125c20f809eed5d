import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { AlbumId } from "@tonearm/core"
import { Effect } from "effect"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { scanNow } from "../support/library.js"
import { arrangePlays, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { drained, eventually, fakeMusicBrainz, fastEnrichment, gapsOf, jpeg, stateCounts } from "./support.js"

const root = await syntheticLibrary(400, 7)
const cover = await jpeg()

const musicbrainz = await startFakeServer(fakeMusicBrainz)
const lastfm = await startFakeServer((server) =>
  // Garbage: an HTML error page where JSON was asked for.
  server.on("GET", "/2.0/", () => ({
    status: 200,
    body: "<html>oops</html>",
    headers: { "content-type": "text/html" },
  })),
)
const listenbrainz = await startFakeServer((server) =>
  server.on("GET", "/1/metadata/artist/", () => ({ status: 503, body: { error: "try later" } })),
)
const coverartarchive = await startFakeServer((server) =>
  server.on("GET", /^\/release\/[0-9a-f-]{36}\/front-500$/, () => ({
    body: new Uint8Array(cover),
    headers: { "content-type": "image/jpeg" },
  })),
)
afterAll(async () => {
  for (const server of [musicbrainz, lastfm, listenbrainz, coverartarchive]) await server.stop()
})

const settings = fastEnrichment({
  musicbrainz: musicbrainz.url,
  lastfm: lastfm.url,
  listenbrainz: listenbrainz.url,
  coverartarchive: coverartarchive.url,
})

let admin: SignedIn
let bob: SignedIn

const countRows = (query: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe<{ n: number }>(query).pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0))),
  )

layer(TestServerLive({ libraryDir: root, enrichment: settings }), {
  excludeTestServices: true,
  timeout: "240 seconds",
})("enrichment", (it) => {
  it.effect("tag sources: listed with the version; every external provider starts disabled", () =>
    Effect.gen(function* () {
      admin = yield* signUpFirstAdmin("admin")
      bob = yield* createAndLogIn(admin.client, "bob")
      yield* scanNow()
      const sources = yield* admin.client.tagSources.list()
      expect(sources.version).toBe(0)
      expect(sources.providers.map((source) => source.id)).toEqual([
        "musicbrainz",
        "lastfm",
        "listenbrainz",
        "coverartarchive",
      ])
      for (const source of sources.providers) {
        expect(source.enabled).toBe(false)
        expect(source.version).toBe(0)
        expect(Object.keys(source).sort()).toEqual(
          ["api_key", "capabilities", "enabled", "id", "requires_api_key", "runs", "testable", "version"].sort(),
        )
      }
      // Nothing is asked of a provider nobody switched on.
      expect(musicbrainz.requests).toHaveLength(0)
    }),
  )

  it.effect("tag sources: 403 for a non-admin, 404 for an unknown id (PATCH and test)", () =>
    Effect.gen(function* () {
      expect((yield* raw("GET", "/api/admin/tag-sources", { token: bob.token })).status).toBe(403)
      const patch = yield* raw("PATCH", "/api/admin/tag-sources/musicbrainz", {
        token: bob.token,
        body: JSON.stringify({ enabled: true }),
      })
      expect(patch.status).toBe(403)
      expect((yield* raw("POST", "/api/admin/tag-sources/research", { token: bob.token })).status).toBe(403)
      expect((yield* raw("POST", "/api/admin/covers/refetch-missing", { token: bob.token })).status).toBe(403)
      const unknown = yield* raw("PATCH", "/api/admin/tag-sources/nope", {
        token: admin.token,
        body: JSON.stringify({ enabled: true }),
      })
      expect(unknown.status).toBe(404)
      expect(unknown.json).toMatchObject({ error: { code: "not_found" } })
      expect((yield* raw("POST", "/api/admin/tag-sources/nope/test", { token: admin.token })).status).toBe(404)
      // A local cover source is not a tag source to configure…
      const local = yield* raw("PATCH", "/api/admin/tag-sources/sidecar", {
        token: admin.token,
        body: JSON.stringify({ enabled: false }),
      })
      expect(local.status).toBe(404)
    }),
  )

  it.effect("version counter: changing enabled bumps it, a key-only change does not", () =>
    Effect.gen(function* () {
      const keyed = yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { api_key: "k-123" } })
      expect(keyed.api_key).toBe("k-123")
      expect(keyed.version).toBe(0)
      expect(keyed.enabled).toBe(false)
      // Same enabled value again: nothing changes.
      const same = yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { enabled: false } })
      expect(same.version).toBe(0)
      const cleared = yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { api_key: "" } })
      expect(cleared.api_key).toBeNull()
      expect((yield* admin.client.tagSources.list()).version).toBe(0)
    }),
  )

  it.effect("connection test: ok for a reachable provider, ok false for one that cannot be tested or has no key", () =>
    Effect.gen(function* () {
      expect((yield* admin.client.tagSources.test({ path: { id: "musicbrainz" } })).ok).toBe(true)
      const caa = yield* admin.client.tagSources.test({ path: { id: "coverartarchive" } })
      expect(caa.ok).toBe(false)
      // …and cannot be tested either.
      expect(yield* admin.client.tagSources.test({ path: { id: "embedded" } })).toMatchObject({ ok: false })
      const noKey = yield* admin.client.tagSources.test({ path: { id: "lastfm" } })
      expect(noKey.ok).toBe(false)
      expect(noKey.message).toMatch(/key/i)
      // A provider that answers 503 tests false, not an error.
      expect((yield* admin.client.tagSources.test({ path: { id: "listenbrainz" } })).ok).toBe(false)
      // MusicBrainz gets a proper User-Agent.
      expect(musicbrainz.requests.at(-1)?.headers["user-agent"]).toMatch(/^Tonearm\//)
      musicbrainz.requests.length = 0
    }),
  )

  it.effect(
    "enrichment run: every album and artist is enriched once per provider, unbounded but at the provider's throttle (measured)",
    () =>
      Effect.gen(function* () {
        const enabled = yield* admin.client.tagSources.update({
          path: { id: "musicbrainz" },
          payload: { enabled: true },
        })
        expect(enabled.version).toBe(1)
        const counts = yield* drained("musicbrainz")
        const albums = yield* countRows("SELECT count(*)::int AS n FROM albums")
        const artists = yield* countRows("SELECT count(*)::int AS n FROM artists")
        expect(counts).toEqual({ settled: albums + artists })
        const listed = (yield* admin.client.tagSources.list()).providers.find((source) => source.id === "musicbrainz")
        expect(listed?.runs).toEqual({ pending: 0, settled: albums + artists, failed: 0 })
        // One request per entity: nothing fetched twice.
        expect(musicbrainz.requests).toHaveLength(albums + artists)
        // Lookups by id as MusicBrainz documents them.
        const lookup = musicbrainz.requests.find((r) => /^\/ws\/2\/(artist|release)\/[0-9a-f-]{36}$/.test(r.path))
        expect(lookup?.url).toContain("inc=tags+genres")
        expect(lookup?.query.get("fmt")).toBe("json")
        // The per-provider throttle holds under the unbounded drain (40 ms configured).
        const gaps = gapsOf(musicbrainz.requests)
        const span =
          Math.max(...musicbrainz.requests.map((r) => r.at)) - Math.min(...musicbrainz.requests.map((r) => r.at))
        const perSecond = ((musicbrainz.requests.length - 1) / span) * 1000
        console.info(
          `throttle: ${musicbrainz.requests.length} MusicBrainz requests in ${span} ms, ${perSecond.toFixed(1)}/s ` +
            `(limit 25/s), min gap ${Math.min(...gaps)} ms, median ${[...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]} ms`,
        )
        expect(albums + artists).toBeGreaterThan(40)
        expect(perSecond).toBeLessThanOrEqual(26)
        // Any k consecutive requests span at least (k - 1) × 40 ms, less a bound for arrival jitter.
        const times = musicbrainz.requests.map((r) => r.at).sort((a, b) => a - b)
        for (let i = 0; i < times.length; i++)
          for (let j = i + 1; j < times.length; j++)
            expect(times[j]! - times[i]!).toBeGreaterThanOrEqual((j - i) * 40 - 40)
        // Tags are stored weighted (noise like "seen live" dropped); artists without an id got one.
        const tags = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ tag: string; weight: number }>`
              SELECT DISTINCT tag, weight::float8 AS weight FROM enriched_tags WHERE artist_id IS NOT NULL ORDER BY tag`,
        )
        expect(tags.map((row) => row.tag).sort()).toEqual(["Shoegaze", "melancholic"])
        expect(tags.find((row) => row.tag === "Shoegaze")?.weight).toBe(1)
        expect(yield* countRows("SELECT count(*)::int AS n FROM artists WHERE mbid IS NULL")).toBe(0)
        expect(yield* countRows("SELECT count(*)::int AS n FROM albums WHERE mbid IS NULL")).toBe(0)
        // A scan that changes nothing asks nothing again.
        const before = musicbrainz.requests.length
        yield* scanNow()
        yield* Effect.sleep("400 millis")
        expect(musicbrainz.requests.length).toBe(before)
      }),
  )

  it.effect("enriched tags feed the taste profile's tag and mood weights through the mood vocabulary", () =>
    Effect.gen(function* () {
      const tracks = yield* libraryTracks
      yield* arrangePlays(bob.user.id, tracks.slice(0, 30), { times: 3 })
      yield* bob.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      const weights = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ dimension: string; key: string; weight: number }>`
            SELECT dimension, key, weight FROM taste_profile_weights WHERE user_id = ${bob.user.id}`,
      )
      const moods = weights.filter((row) => row.dimension === "mood")
      expect(moods.map((row) => row.key)).toContain("melancholic")
      expect(moods.find((row) => row.key === "melancholic")!.weight).toBeGreaterThan(0)
      expect(weights.some((row) => row.dimension === "tag" && row.key === "Shoegaze")).toBe(true)
    }),
  )

  it.effect("a provider answering 503 is retried with backoff, then marked failed, never looped on", () =>
    Effect.gen(function* () {
      listenbrainz.requests.length = 0
      yield* admin.client.tagSources.update({ path: { id: "listenbrainz" }, payload: { enabled: true } })
      const counts = yield* drained("listenbrainz")
      const artists = yield* countRows("SELECT count(*)::int AS n FROM artists")
      expect(counts).toEqual({ failed: artists })
      // Exactly maxAttempts (3) requests per artist, spaced by the doubling backoff (150 ms, then 300 ms).
      const asked = listenbrainz.hits("/1/metadata/artist/")
      expect(asked).toHaveLength(artists * 3)
      const byArtist = new Map<string, Array<number>>()
      for (const request of asked) {
        const key = request.query.get("artist_mbids")!
        byArtist.set(key, [...(byArtist.get(key) ?? []), request.at])
      }
      for (const times of byArtist.values()) {
        if (times.length !== 3) continue // two artists sharing one MusicBrainz id
        expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(140)
        expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(290)
      }
      const before = listenbrainz.requests.length
      yield* Effect.sleep("600 millis")
      expect(listenbrainz.requests.length).toBe(before)
      const failed = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ attempts: number; last_error: string }>`
            SELECT attempts, last_error FROM enrichment_state WHERE provider = 'listenbrainz' LIMIT 1`,
      )
      expect(failed[0]).toMatchObject({ attempts: 3 })
      expect(failed[0]!.last_error).toMatch(/503/)
      yield* admin.client.tagSources.update({ path: { id: "listenbrainz" }, payload: { enabled: false } })
    }),
  )

  it.effect("a provider answering garbage is retried, then marked failed", () =>
    Effect.gen(function* () {
      yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { enabled: true, api_key: "k" } })
      const counts = yield* drained("lastfm")
      const entities =
        (yield* countRows("SELECT count(*)::int AS n FROM artists")) +
        (yield* countRows("SELECT count(*)::int AS n FROM albums"))
      expect(counts).toEqual({ failed: entities })
      expect(lastfm.requests).toHaveLength(entities * 3)
      expect(lastfm.requests[0]!.query.get("api_key")).toBe("k")
      yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { enabled: false } })
    }),
  )

  it.effect("a provider outage never fails a scan or a detail page", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => musicbrainz.stop())
      const research = yield* admin.client.tagSources.research()
      expect(research.reopened).toBeGreaterThan(0)
      const summary = yield* scanNow(true)
      expect(summary.errors).toBe(0)
      const album = (yield* admin.client.library.albums({ urlParams: {} })).items[0]!
      const detail = yield* admin.client.library.album({ path: { id: album.id } })
      expect(detail.id).toBe(album.id)
      const artist = yield* admin.client.library.artist({ path: { id: album.artist_id } })
      expect(artist.id).toBe(album.artist_id)
      // Back up: the re-opened rows settle again.
      musicbrainz.requests.length = 0
      yield* Effect.promise(() => musicbrainz.start())
      yield* admin.client.tagSources.research()
      const counts = yield* drained("musicbrainz")
      expect(counts.pending ?? 0).toBe(0)
      expect(counts.settled ?? 0).toBeGreaterThan(0)
    }),
  )

  it.effect("research bumps the version and re-opens settled rows", () =>
    Effect.gen(function* () {
      yield* drained("musicbrainz")
      const version = (yield* admin.client.tagSources.list()).version
      musicbrainz.requests.length = 0
      const research = yield* admin.client.tagSources.research()
      expect(research.version).toBe(version + 1)
      expect(research.reopened).toBeGreaterThan(0)
      yield* drained("musicbrainz")
      expect(musicbrainz.requests.length).toBeGreaterThanOrEqual(
        (yield* stateCounts("musicbrainz")).settled ?? Number.POSITIVE_INFINITY,
      )
    }),
  )

  it.effect(
    "covers: refetch-missing starts a background drain; external covers count in the coverage rollup and are served",
    () =>
      Effect.gen(function* () {
        const before = yield* admin.client.coverSources.list()
        const uncovered = before.coverage.albums - before.coverage.covered
        expect(uncovered).toBeGreaterThan(0)
        expect(before.providers.find((p) => p.id === "coverartarchive")?.enabled).toBe(false)
        // Read before the covers arrive: the album list is kept per library version, and sync has reached the end.
        const listed = yield* bob.client.library.albums({ urlParams: { limit: 500 } })
        const bare = listed.items.filter((album) => album.cover_url === null).map((album) => album.id)
        expect(bare.length).toBeGreaterThan(0)
        let cursor: string | undefined
        for (let more = true; more; ) {
          const page = yield* bob.client.sync.changes({ urlParams: { limit: 5000, ...(cursor ? { cursor } : {}) } })
          cursor = page.cursor
          more = page.has_more
        }
        yield* admin.client.tagSources.update({ path: { id: "coverartarchive" }, payload: { enabled: true } })
        const started = yield* admin.client.coverRefetch.refetchMissing()
        expect(started).toEqual({ started: true })
        yield* drained("coverartarchive")
        const after = yield* admin.client.coverSources.list()
        expect(after.providers.find((p) => p.id === "coverartarchive")).toMatchObject({ enabled: true })
        expect(after.coverage.by_source.coverartarchive).toBe(uncovered)
        expect(after.coverage.covered).toBe(after.coverage.albums)
        // Local covers were never replaced.
        expect(after.coverage.by_source.sidecar ?? 0).toBe(before.coverage.by_source.sidecar ?? 0)
        expect(after.coverage.by_source.embedded ?? 0).toBe(before.coverage.by_source.embedded ?? 0)
        const covered = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ id: string }>`SELECT id FROM albums WHERE cover_art_source = 'coverartarchive' LIMIT 1`,
        )
        const image = yield* raw("GET", `/api/albums/${AlbumId.make(covered[0]!.id)}/cover`, { token: bob.token })
        expect(image.status).toBe(200)
        expect(image.headers.get("content-type")).toBe("image/jpeg")
        expect(Buffer.compare(image.bytes, cover)).toBe(0)
        const detail = yield* bob.client.library.album({ path: { id: AlbumId.make(covered[0]!.id) } })
        expect(detail.cover_art_source).toBe("coverartarchive")
        expect(detail.cover_url).toBe(`/api/albums/${covered[0]!.id}/cover`)
        // Each adopted cover is an album upsert to sync, and shows on the same album list read again.
        const synced = yield* bob.client.sync.changes({ urlParams: { limit: 5000, cursor: cursor! } })
        expect(new Set(synced.upserts.albums.map((album) => album.id))).toEqual(new Set(bare))
        const relisted = yield* bob.client.library.albums({ urlParams: { limit: 500 } })
        const stillBare = relisted.items.filter((album) => bare.includes(album.id) && album.cover_url === null)
        expect(stillBare).toEqual([])
        yield* eventually(
          Effect.map(admin.client.coverRefetch.refetchMissing(), (answer) => answer.started),
          "a second refetch after the first drain ended",
        )
      }),
  )

  it.effect("the CAA is asked only by MusicBrainz release id", () =>
    Effect.gen(function* () {
      const asked = new Set(coverartarchive.requests.map((request) => request.path.split("/")[2]))
      const mbids = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ mbid: string }>`SELECT mbid FROM albums WHERE cover_art_source = 'coverartarchive'`,
      )
      expect(mbids.length).toBeGreaterThan(0)
      for (const album of mbids) expect(asked.has(album.mbid)).toBe(true)
    }),
  )
})
