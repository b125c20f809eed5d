import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { REASON_KINDS } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import { arrangePlays, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(600, 13)

interface WireEntry {
  readonly entry_id: string
  readonly pick_kind: string | null
  readonly reason: {
    readonly kind: string
    readonly text: string
    readonly seed_id?: string
    readonly score_parts: Record<string, number>
  } | null
  readonly track: { readonly id: string }
}

/** A listener with plays of a third of the library, their system playlists rebuilt by a For You refresh. */
const aRebuiltListener = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const tracks = yield* libraryTracks
  yield* arrangePlays(alice.user.id, tracks.slice(0, Math.ceil(tracks.length / 3)), { times: 3, daysAgo: 2 })
  const forYou = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
  return { alice, tracks, forYou }
})

const entriesOf = (id: string, token: string) =>
  Effect.map(raw("GET", `/api/playlists/${id}`, { token }), (response) => {
    expect(response.status).toBe(200)
    return (response.json as { tracks: ReadonlyArray<WireEntry> }).tracks
  })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("pick reasons on playlist entries (issue 28 item 3)", (it) => {
  it.effect("every system snapshot entry carries its reason {kind, text, seed_id?, score_parts}", () =>
    Effect.gen(function* () {
      const { alice, forYou } = yield* aRebuiltListener
      const entries = yield* entriesOf(forYou.id, alice.token)
      expect(entries.length).toBeGreaterThanOrEqual(15)
      for (const entry of entries) {
        expect(entry.reason).not.toBeNull()
        expect(REASON_KINDS).toContain(entry.reason!.kind)
        expect(entry.reason!.text.length).toBeGreaterThan(5)
        // the weighted terms of rule 2, the penalties as negative numbers
        expect(Object.keys(entry.reason!.score_parts)).toEqual(
          expect.arrayContaining(["taste", "like", "context", "novelty", "popularity", "recency", "skips"]),
        )
        expect(entry.reason!.score_parts.recency).toBeLessThanOrEqual(0)
      }
      // the server names the artist the engine could not: "Because you like <the track's artist>"
      const taste = entries.filter((entry) => entry.reason!.kind === "taste")
      expect(taste.length).toBeGreaterThan(0)
      for (const entry of taste)
        expect(entry.reason!.text).toBe(
          `Because you like ${(entry.track as unknown as { artist_name: string }).artist_name}`,
        )
      // Songs like <artist>: the seed artist is named by its id
      const rows0 = yield* alice.client.playlists.list()
      const songsLike = rows0.find((row) => row.system_variant?.startsWith("songs_like_artist:") && !row.locked)
      if (songsLike !== undefined) {
        const detail = yield* alice.client.playlists.get({ path: { id: songsLike.id } })
        const seedName = songsLike.name.replace(/^Songs like /, "")
        for (const entry of detail.tracks) expect(entry.reason!.text).toContain(seedName)
      }
      // every other system playlist of the rebuild too (the SDK decodes the same shape)
      const rows = yield* alice.client.playlists.list()
      for (const row of rows.filter((r) => r.system_variant !== null && !r.locked)) {
        const detail = yield* alice.client.playlists.get({ path: { id: row.id } })
        for (const entry of detail.tracks) expect(entry.reason?.kind).toBeDefined()
      }
    }),
  )

  it.effect("the reason survives the next rebuild rewriting the entries in place", () =>
    Effect.gen(function* () {
      const { alice, forYou } = yield* aRebuiltListener
      const again = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      expect(again.id).toBe(forYou.id)
      const entries = yield* entriesOf(again.id, alice.token)
      expect(entries.every((entry) => entry.reason !== null)).toBe(true)
    }),
  )

  it.effect("an old snapshot entry without a stored reason reads as reason: null; user playlists have none", () =>
    Effect.gen(function* () {
      const { alice, tracks, forYou } = yield* aRebuiltListener
      const sql = yield* SqlClient.SqlClient
      const first = (yield* entriesOf(forYou.id, alice.token))[0]!
      yield* sql`UPDATE playlist_tracks SET reason = NULL WHERE id = ${first.entry_id}`
      const after = yield* entriesOf(forYou.id, alice.token)
      expect(after.find((entry) => entry.entry_id === first.entry_id)!.reason).toBeNull()
      expect(after.filter((entry) => entry.reason !== null)).toHaveLength(after.length - 1)
      const mine = yield* alice.client.playlists.create({ payload: { name: "Mine", track_ids: [tracks[0]!.id] } })
      const own = yield* entriesOf(mine.id, alice.token)
      expect(own.map((entry) => entry.reason)).toEqual([null])
    }),
  )

  it.effect("the tuning page's sample: an admin reads a user's list with its score parts; 404, 403, 400", () =>
    Effect.gen(function* () {
      const { alice, forYou } = yield* aRebuiltListener
      const admin = yield* Admin
      const sample = yield* admin.client.tuning.sample({ urlParams: { username: alice.user.username } })
      expect(sample.id).toBe(forYou.id)
      expect(sample.tracks.length).toBe(forYou.tracks.length)
      expect(sample.tracks.every((entry) => entry.reason !== null)).toBe(true)
      const path = "/api/admin/recommendation-tuning/sample"
      const unknown = yield* raw("GET", `${path}?username=nobody-here`, { token: admin.token })
      expect(unknown.status).toBe(404)
      const none = yield* raw("GET", `${path}?username=${alice.user.username}&variant=on_repeat`, {
        token: admin.token,
      })
      expect([200, 404]).toContain(none.status)
      expect((yield* raw("GET", `${path}?username=x&variant=nonsense`, { token: admin.token })).status).toBe(400)
      expect((yield* raw("GET", `${path}?username=${alice.user.username}`, { token: alice.token })).status).toBe(403)
    }),
  )

  it.effect("another user's system playlist is 404 and shows no reasons", () =>
    Effect.gen(function* () {
      const { forYou } = yield* aRebuiltListener
      const bob = yield* aUser("bob")
      const response = yield* raw("GET", `/api/playlists/${forYou.id}`, { token: bob.token })
      expect(response.status).toBe(404)
      expect(response.text).not.toContain("score_parts")
    }),
  )
})
