import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { Mbid } from "@tonearm/core"
import { Effect } from "effect"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { scanNow } from "../support/library.js"
import { arrangePlays, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { fastEnrichment } from "./support.js"

const root = await syntheticLibrary(600, 23)

const X = Mbid.make("0a0a0a0a-1111-4222-8333-444455556666")
const Y = Mbid.make("0b0b0b0b-1111-4222-8333-444455556666")
const Z = Mbid.make("0c0c0c0c-1111-4222-8333-444455556666")
/** The user's strongest tag, chosen once the library is scanned. */
let genre = ""

const lastfm = await startFakeServer((server) =>
  server.on("GET", "/2.0/", (request) => {
    switch (request.query.get("method")) {
      case "artist.getsimilar":
        return {
          body: {
            similarartists: {
              artist: [
                { name: "Xavier", mbid: X, match: "0.9" },
                { name: "Yolanda", mbid: Y, match: "0.5" },
                // No MusicBrainz id: a provider's candidate is only suggested by MBID.
                { name: "Nobody", mbid: "", match: "0.99" },
              ],
            },
          },
        }
      case "artist.gettoptags": {
        const mbid = request.query.get("mbid")
        const tag = mbid === Y ? [{ name: genre, count: 100 }] : mbid === X ? [] : [{ name: "indie", count: 3 }]
        return { body: { toptags: { tag } } }
      }
      default:
        return { body: { album: { tags: "", image: [] } } }
    }
  }),
)
const listenbrainz = await startFakeServer((server) => {
  server.on("GET", "/similar-artists/json", () => ({ body: [{ artist_mbid: Z, name: "Zed", score: 40 }] }))
  server.on("GET", "/1/metadata/artist/", (request) => ({
    body: (request.query.get("artist_mbids") ?? "")
      .split(",")
      .map((mbid) => ({ artist_mbid: mbid, tag: { artist: mbid === Z ? [{ tag: genre, count: 5 }] : [] } })),
  }))
})
let inFlight = 0
let mostInFlight = 0
const lidarr = await startFakeServer((server) =>
  server.on("GET", "/api/v1/artist/lookup", async (request) => {
    inFlight++
    mostInFlight = Math.max(mostInFlight, inFlight)
    await new Promise((resolve) => setTimeout(resolve, 60))
    inFlight--
    const mbid = (request.query.get("term") ?? "").replace(/^lidarr:/, "")
    // Y's lookup finds someone else (no match on the foreign artist id).
    const foreign = mbid === Y ? "ffffffff-1111-4222-8333-444455556666" : mbid
    return {
      body: [
        {
          foreignArtistId: foreign,
          images: [
            { coverType: "banner", remoteUrl: `https://images.example/${mbid}/banner.jpg` },
            {
              coverType: "poster",
              url: "/MediaCover/1/poster.jpg",
              remoteUrl: `https://images.example/${mbid}/poster.jpg`,
            },
          ],
        },
      ],
    }
  }),
)
afterAll(async () => {
  for (const server of [lastfm, listenbrainz, lidarr]) await server.stop()
})

const settings = fastEnrichment({
  musicbrainz: "http://127.0.0.1:9",
  lastfm: lastfm.url,
  listenbrainz: listenbrainz.url,
  coverartarchive: "http://127.0.0.1:9",
})

let admin: SignedIn
let bob: SignedIn

layer(TestServerLive({ libraryDir: root, enrichment: settings }), {
  excludeTestServices: true,
  timeout: "240 seconds",
})("Discover: similar-artist sources", (it) => {
  it.effect(
    "Discover suggests out-of-library artists by MBID from the providers, ranked by rule 5 with the user's tags",
    () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        bob = yield* createAndLogIn(admin.client, "bob")
        yield* scanNow()
        // Bob listens to tracks by artists with a MusicBrainz id (ListenBrainz needs one), in one genre. Every artist
        // a track credits enters the taste profile (a featured guest with a share), and so Discover's seeds: a guest
        // without an MBID would be a seed ListenBrainz cannot answer for, so every credited artist has one.
        const sql = yield* SqlClient.SqlClient
        const allCreditsWithMbid = new Set(
          (yield* sql<{ id: string }>`
            SELECT t.id FROM tracks t WHERE NOT EXISTS (
              SELECT 1 FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
              WHERE ta.track_id = t.id AND a.mbid IS NULL)`).map((row) => row.id),
        )
        const tracks = (yield* libraryTracks).filter(
          (track) => allCreditsWithMbid.has(track.id) && track.genres.length > 0,
        )
        const counts = new Map<string, number>()
        for (const track of tracks) for (const g of track.genres) counts.set(g, (counts.get(g) ?? 0) + 1)
        genre = [...counts].sort((a, b) => b[1] - a[1])[0]![0]
        const played = tracks.filter((track) => track.genres.includes(genre))
        expect(played.length).toBeGreaterThan(3)
        yield* arrangePlays(bob.user.id, played, { times: 4 })
        yield* bob.client.systemPlaylists.refresh({ path: { kind: "for_you" } })

        // Providers off: only in-library suggestions.
        const before = yield* bob.client.discover.suggestions()
        expect(before.every((suggestion) => suggestion.in_library)).toBe(true)

        yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { enabled: true, api_key: "key" } })
        yield* admin.client.tagSources.update({ path: { id: "listenbrainz" }, payload: { enabled: true } })
        const suggestions = yield* bob.client.discover.suggestions()
        const outside = suggestions.filter((suggestion) => !suggestion.in_library)
        expect(outside.map((suggestion) => suggestion.mbid).sort()).toEqual([X, Y, Z].sort())
        const x = outside.find((s) => s.mbid === X)!
        const y = outside.find((s) => s.mbid === Y)!
        const z = outside.find((s) => s.mbid === Z)!
        expect(x).toMatchObject({ name: "Xavier", in_library: false, tags: [] })
        expect(x.artist_id).toBeUndefined()
        expect(y.tags).toEqual([genre])
        // Rule 5: Y (0.5, fully overlapping the user's strongest tag) overtakes the untagged X (0.9), which keeps its score.
        expect(x.score).toBeCloseTo(0.9, 5)
        expect(y.score).toBeCloseTo(0.5 * (1 + 1 * 1), 5)
        expect(z.score).toBeCloseTo(1 * (1 + 1), 5)
        const order = suggestions.map((suggestion) => suggestion.mbid)
        expect(order.indexOf(Z)).toBeLessThan(order.indexOf(Y))
        expect(order.indexOf(Y)).toBeLessThan(order.indexOf(X))
        // Weight 0 restores pure similarity order.
        yield* admin.client.tuning.patch({ payload: { scope: "discovery", changes: { tag_overlap_weight: 0 } } })
        const pure = (yield* bob.client.discover.suggestions()).map((suggestion) => suggestion.mbid)
        expect(pure.indexOf(X)).toBeLessThan(pure.indexOf(Y))
        yield* admin.client.tuning.reset({ payload: { scope: "discovery" } })
        // No image without a manager.
        expect(suggestions.every((suggestion) => suggestion.image_url === undefined)).toBe(true)
        // Similar artists are cached: a second call asks the providers nothing new.
        const asked = lastfm.requests.filter((r) => r.query.get("method") === "artist.getsimilar").length
        yield* bob.client.discover.suggestions()
        expect(lastfm.requests.filter((r) => r.query.get("method") === "artist.getsimilar").length).toBe(asked)
      }),
  )

  it.effect("a snoozed out-of-library suggestion disappears, and returns when unsnoozed", () =>
    Effect.gen(function* () {
      yield* bob.client.discover.snooze({ path: { mbid: Y }, payload: { name: "Yolanda", days: 7 } })
      const snoozed = (yield* bob.client.discover.suggestions()).map((suggestion) => suggestion.mbid)
      expect(snoozed).not.toContain(Y)
      expect(snoozed).toContain(X)
      // Only for Bob.
      yield* bob.client.discover.unsnooze({ path: { mbid: Y } })
      expect((yield* bob.client.discover.suggestions()).map((suggestion) => suggestion.mbid)).toContain(Y)
    }),
  )

  it.effect(
    "suggestion image_url comes from the manager's artist lookup, matched by MBID, with bounded concurrency",
    () =>
      Effect.gen(function* () {
        yield* admin.client.manager.set({
          payload: {
            url: lidarr.url,
            api_key: "k",
            root_folder_path: "/music",
            quality_profile_id: 1,
            metadata_profile_id: 1,
          },
        })
        const suggestions = yield* bob.client.discover.suggestions()
        const byMbid = new Map(suggestions.map((suggestion) => [suggestion.mbid, suggestion]))
        expect(byMbid.get(X)!.image_url).toBe(`https://images.example/${X}/poster.jpg`)
        expect(byMbid.get(Z)!.image_url).toBe(`https://images.example/${Z}/poster.jpg`)
        // Unmatched: omitted (the key is absent, not null).
        expect("image_url" in byMbid.get(Y)!).toBe(false)
        const lookups = lidarr.hits("/api/v1/artist/lookup")
        expect(lookups.length).toBeGreaterThanOrEqual(3)
        expect(mostInFlight).toBeGreaterThan(1)
        expect(mostInFlight).toBeLessThanOrEqual(4)
        // Never cached: the next request asks again.
        yield* bob.client.discover.suggestions()
        expect(lidarr.hits("/api/v1/artist/lookup").length).toBeGreaterThan(lookups.length)
        // A manager that hangs costs a Discover request at most its timeout (1 s here), and no images.
        lidarr.on(
          "GET",
          "/api/v1/artist/lookup",
          () => new Promise((resolve) => setTimeout(() => resolve({ body: [] }), 3000)),
        )
        const started = Date.now()
        const slow = yield* bob.client.discover.suggestions()
        expect(Date.now() - started).toBeLessThan(2500)
        expect(slow.every((suggestion) => suggestion.image_url === undefined)).toBe(true)
        // Manager unreachable: no image, the request still succeeds.
        yield* Effect.promise(() => lidarr.stop())
        const down = yield* raw("GET", "/api/discover/suggestions", { token: bob.token })
        expect(down.status).toBe(200)
        expect(
          (down.json as Array<{ image_url?: string }>).every((suggestion) => suggestion.image_url === undefined),
        ).toBe(true)
        yield* Effect.promise(() => lidarr.start())
      }),
  )

  it.effect("a provider outage never fails Discover", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => lastfm.stop())
      yield* Effect.promise(() => listenbrainz.stop())
      // Fresh lookups (the cache is dropped when a key changes) meet providers that are down.
      yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { api_key: "other" } })
      const answer = yield* raw("GET", "/api/discover/suggestions", { token: bob.token })
      expect(answer.status).toBe(200)
      yield* Effect.promise(() => lastfm.start())
      yield* Effect.promise(() => listenbrainz.start())
    }),
  )
})
