import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { PlaylistDetail, PlaylistRow } from "@tonearm/core"
import { Effect, Either, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { arrangePlays, type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * 1200 tracks by 28 artists. For You keeps at most two tracks per artist and draws its `fresh` tail only when
 * that capped ranking is longer than 50, so the library needs more than 25 artists (seed 23 has 20: its
 * "X feat. Y" tracks, once artists of their own, no longer count as further artists).
 */
const root = await syntheticLibrary(1200, 13)

const GENRE = "Jazz"

const forYouOf = (rows: ReadonlyArray<PlaylistRow>) => rows.find((row) => row.system_variant === "for_you")

/**
 * A fresh listener who played half of the library's Jazz-only tracks to the end a few times each, then
 * refreshed For You (which rebuilds every system playlist of theirs). Answers the listener, the library and
 * that For You.
 */
const aJazzListener = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const tracks = yield* libraryTracks
  const jazz = tracks.filter((track) => track.genres.length === 1 && track.genres[0] === GENRE)
  expect(jazz.length).toBeGreaterThan(30)
  yield* arrangePlays(alice.user.id, jazz.slice(0, Math.ceil(jazz.length / 2)), { times: 3, daysAgo: 2 })
  const forYou = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
  return { alice, tracks, forYou }
})

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("recommendations: the daily rebuild", (it) => {
  it.effect("a listener whose plays are all of one genre gets a For You whose taste head is that genre", () =>
    Effect.gen(function* () {
      // Half of the library's tracks that are only Jazz, played to the end a few times each, then a refresh.
      const { tracks, forYou } = yield* aJazzListener
      // Enough artists for a tail beyond the head (two per artist, 50 tracks).
      expect(new Set(tracks.map((track) => track.artist_id)).size).toBeGreaterThan(25)
      expect(forYou.system_variant).toBe("for_you")
      expect(forYou.refreshable).toBe(true)
      expect(forYou.locked).toBe(false)
      const head = forYou.tracks.filter((entry) => entry.pick_kind === "taste")
      expect(head.length).toBeGreaterThan(0)
      const genresOf = new Map(tracks.map((track) => [track.id as string, track.genres]))
      const jazzy = head.filter((entry) => genresOf.get(entry.track.id)?.includes(GENRE))
      expect(jazzy.length / head.length).toBeGreaterThan(0.6)
      // Every row of the snapshot is stamped: the head `taste`, the tail `fresh`.
      expect(new Set(forYou.tracks.map((entry) => entry.pick_kind))).toEqual(new Set(["taste", "fresh"]))
    }),
  )

  it.effect(
    "taste profiles are stored per user: artist, tag (genre) and era weights; moods empty until enrichment",
    () =>
      Effect.gen(function* () {
        const { alice } = yield* aJazzListener
        const bob = yield* aUser("bob")
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ dimension: string; key: string; weight: number }>`
          SELECT dimension, key, weight FROM taste_profile_weights WHERE user_id = ${alice.user.id}`
        const weight = (dimension: string, key: string) =>
          rows.find((row) => row.dimension === dimension && row.key === key)?.weight ?? 0
        expect(weight("tag", GENRE)).toBeGreaterThan(0)
        const strongestTag = rows.filter((row) => row.dimension === "tag").sort((a, b) => b.weight - a.weight)[0]
        expect(strongestTag?.key).toBe(GENRE)
        expect(rows.some((row) => row.dimension === "artist" && row.weight > 0)).toBe(true)
        expect(rows.some((row) => row.dimension === "era")).toBe(true)
        expect(rows.filter((row) => row.dimension === "mood")).toEqual([])
        // Bob never played anything and was never rebuilt: no profile of his exists.
        const bobs = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM taste_profiles WHERE user_id = ${bob.user.id}`
        expect(bobs[0]!.n).toBe(0)
      }),
  )

  it.effect("system snapshots cover every kind of the contract, each row stamped with its pick kind", () =>
    Effect.gen(function* () {
      const { alice } = yield* aJazzListener
      const rows = yield* alice.client.playlists.list()
      const variants = rows.flatMap((row) => (row.system_variant === null ? [] : [row.system_variant]))
      for (const kind of ["for_you", "discover", "new_for_you", "first_listens", "rediscover", "on_repeat"])
        expect(variants).toContain(kind)
      expect(variants.some((variant) => /^daily_mix:[1-6]$/.test(variant))).toBe(true)
      expect(variants.some((variant) => variant.startsWith("songs_like_artist:"))).toBe(true)
      for (const row of rows.filter((row) => row.system_variant !== null)) {
        expect(row.refreshable).toBe(row.system_variant === "for_you" || row.system_variant === "discover")
        if (row.locked) continue
        const detail = yield* alice.client.playlists.get({ path: { id: row.id } })
        const kinds = new Set(detail.tracks.map((entry) => entry.pick_kind))
        if (row.system_variant === "discover")
          for (const kind of kinds) expect(["taste_unheard", "dormant", "cross_user", "random"]).toContain(kind)
        else if (row.system_variant !== "for_you")
          for (const kind of kinds) expect(["tier1", "tier2", "tier3"]).toContain(kind)
      }
    }),
  )

  it.effect("refresh publishes playlist.system_rebuilt ({} data) on that user's event stream only", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const url = yield* serverUrl
      const alices = yield* openSse(url, alice.token)
      const bobs = yield* openSse(url, bob.token)
      yield* alices.waitFor((frame) => frame.text === "connected")
      yield* bobs.waitFor((frame) => frame.text === "connected")
      yield* alice.client.systemPlaylists.refresh({ path: { kind: "discover" } })
      const [event] = yield* alices.waitFor((frame) => frame.event === "playlist.system_rebuilt")
      expect(event!.data).toEqual({ kind: "playlist.system_rebuilt", user_id: alice.user.id, data: {} })
      // Bob's own refresh arrives on his stream; Alice's never did.
      yield* bob.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      yield* bobs.waitFor((frame) => frame.event === "playlist.system_rebuilt")
      expect(bobs.frames.filter((frame) => frame.event === "playlist.system_rebuilt")).toHaveLength(1)
      expect(alices.frames.filter((frame) => frame.event === "playlist.system_rebuilt")).toHaveLength(1)
    }).pipe(Effect.scoped),
  )

  it.effect("refresh and shuffle of a non-singleton or unknown system kind are 404 not_refreshable", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const artist = (yield* libraryTracks)[0]!.artist_id
      for (const kind of ["daily_mix:1", "rediscover", `songs_like_artist:${artist}`, "for-you", "nonsense"]) {
        const refresh = yield* Effect.either(alice.client.systemPlaylists.refresh({ path: { kind } }))
        expect(Either.isLeft(refresh) && refresh.left._tag).toBe("NotRefreshable")
        const shuffle = yield* Effect.either(alice.client.systemPlaylists.shuffle({ path: { kind } }))
        expect(Either.isLeft(shuffle) && shuffle.left._tag).toBe("NotRefreshable")
      }
    }),
  )

  it.effect("another user's system playlist is 404; each user's refresh and shuffle touch only their own", () =>
    Effect.gen(function* () {
      const { alice } = yield* aJazzListener
      const bob = yield* aUser("bob")
      const mine = forYouOf(yield* alice.client.playlists.list())!
      const seen = yield* Effect.either(bob.client.playlists.get({ path: { id: mine.id } }))
      expect(Either.isLeft(seen) && seen.left._tag).toBe("NotFound")
      const bobsForYou = yield* bob.client.systemPlaylists.shuffle({ path: { kind: "for_you" } })
      expect(bobsForYou.id).not.toBe(mine.id)
      const before = yield* alice.client.playlists.get({ path: { id: mine.id } })
      yield* bob.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      const after = yield* alice.client.playlists.get({ path: { id: mine.id } })
      expect(after.tracks.map((entry) => entry.track.id)).toEqual(before.tracks.map((entry) => entry.track.id))
    }),
  )

  it.effect("snapshots are replaced atomically: a reader during rebuilds sees a whole snapshot every time", () =>
    Effect.gen(function* () {
      const { alice } = yield* aJazzListener
      const forYou = forYouOf(yield* alice.client.playlists.list())!
      const size = (yield* alice.client.playlists.get({ path: { id: forYou.id } })).tracks.length
      const reads: Array<PlaylistDetail> = []
      yield* Effect.all(
        [
          Effect.forEach([1, 2, 3], () => alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } }), {
            discard: true,
          }),
          Effect.forEach(
            Array.from({ length: 25 }, (_, i) => i),
            () =>
              alice.client.playlists
                .get({ path: { id: forYou.id } })
                .pipe(Effect.tap((detail) => Effect.sync(() => reads.push(detail)))),
            { discard: true },
          ),
        ],
        { concurrency: 2 },
      )
      for (const detail of reads) {
        expect(detail.tracks).toHaveLength(size)
        expect(detail.tracks.every((entry) => entry.pick_kind === "taste" || entry.pick_kind === "fresh")).toBe(true)
        expect(new Set(detail.tracks.map((entry) => entry.position)).size).toBe(size)
      }
    }),
  )

  it.effect("a daily rebuild rewrites entries in place: the sync change log does not grow", () =>
    Effect.gen(function* () {
      const { alice } = yield* aJazzListener
      const sql = yield* SqlClient.SqlClient
      const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM library_changes WHERE scope = ${alice.user.id}`
      const before = (yield* count)[0]!.n
      const entriesBefore = (yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })).tracks
      const after = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      // Same kinds and the same sizes: every entry keeps its id, so no new change-log entity appears.
      expect((yield* count)[0]!.n).toBe(before)
      expect(after.tracks.map((entry) => [entry.position, entry.entry_id])).toEqual(
        entriesBefore.map((entry) => [entry.position, entry.entry_id]),
      )
      // What a reader gets is the new snapshot, row for row.
      const read = yield* alice.client.playlists.get({ path: { id: after.id } })
      expect(read.tracks.map((entry) => [entry.entry_id, entry.track.id, entry.pick_kind])).toEqual(
        after.tracks.map((entry) => [entry.entry_id, entry.track.id, entry.pick_kind]),
      )
      // Library sync carries system playlists with their system_variant.
      const variants: Array<string | null> = []
      let cursor: string | undefined
      for (let more = true; more; ) {
        const page = yield* alice.client.sync.changes({ urlParams: cursor === undefined ? {} : { cursor } })
        variants.push(...page.upserts.playlists.map((row) => row.system_variant))
        cursor = page.cursor
        more = page.has_more
      }
      expect(variants).toContain("for_you")
    }),
  )

  it.effect("new snapshot entries get time-ordered ids (UUID version 7): one rebuild's entries sit together", () =>
    Effect.gen(function* () {
      const { alice } = yield* aJazzListener
      const forYou = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      expect(forYou.tracks.length).toBeGreaterThan(0)
      for (const entry of forYou.tracks) {
        const hex = entry.entry_id.replaceAll("-", "")
        expect(hex[12]).toBe("7")
        expect("89ab").toContain(hex[16])
        // The first 48 bits are the milliseconds of the database's clock when the entry was first written.
        const writtenAt = Number.parseInt(hex.slice(0, 12), 16)
        expect(Math.abs(Date.now() - writtenAt)).toBeLessThan(3_600_000)
      }
    }),
  )

  it.effect("a play from a system source takes its pick kind from the user's current snapshot", () =>
    Effect.gen(function* () {
      const { alice } = yield* aJazzListener
      const forYou = yield* alice.client.systemPlaylists.shuffle({ path: { kind: "for_you" } })
      const entry = forYou.tracks.find((candidate) => candidate.pick_kind === "fresh") ?? forYou.tracks[0]!
      const started = yield* alice.client.plays.report({
        payload: { type: "play_started", track_id: entry.track.id, client_id: "web-1", source: "for_you" },
      })
      const history = yield* alice.client.plays.history({ urlParams: { limit: 1 } })
      expect(started).toBeDefined()
      expect(history.items[0]!.pick_kind).toBe(entry.pick_kind)
      expect(history.items[0]!.source).toBe("for_you")
    }),
  )

  it.effect("You might like: the cold-start gate keeps both rows empty; past it Home shows 10 at most", () =>
    Effect.gen(function* () {
      const { alice, tracks } = yield* aJazzListener
      const bob = yield* aUser("bob")
      // Bob: 10 distinct tracks of 2 artists, below 20 tracks and 5 artists.
      const byArtist = new Map<string, Array<LibraryTrackRow>>()
      for (const track of tracks) byArtist.set(track.artist_id, [...(byArtist.get(track.artist_id) ?? []), track])
      const two = [...byArtist.values()].filter((list) => list.length >= 5).slice(0, 2)
      yield* arrangePlays(
        bob.user.id,
        two.flatMap((list) => list.slice(0, 5)),
        { daysAgo: 3 },
      )
      yield* bob.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      const bobsHome = yield* bob.client.home.sections()
      expect(bobsHome.you_might_like_albums).toEqual([])
      expect(bobsHome.you_might_like_artists).toEqual([])

      const alicesHome = yield* alice.client.home.sections()
      expect(alicesHome.you_might_like_albums.length).toBeGreaterThan(0)
      expect(alicesHome.you_might_like_albums.length).toBeLessThanOrEqual(10)
      expect(alicesHome.you_might_like_artists.length).toBeGreaterThan(0)
      expect(alicesHome.you_might_like_artists.length).toBeLessThanOrEqual(10)
      // De-duplicated at read time against most played, rediscover and last played.
      const shown = new Set(
        [...alicesHome.most_played, ...alicesHome.rediscover_albums, ...alicesHome.last_played].map((a) => a.id),
      )
      for (const album of alicesHome.you_might_like_albums) expect(shown.has(album.id)).toBe(false)
      const perArtist = new Map<string, number>()
      for (const album of alicesHome.you_might_like_albums)
        perArtist.set(album.artist_id, (perArtist.get(album.artist_id) ?? 0) + 1)
      for (const count of perArtist.values()) expect(count).toBeLessThanOrEqual(2)
    }),
  )
})
