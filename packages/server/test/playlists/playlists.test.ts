import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { PlaylistEntryId, PlaylistId, TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import sharp from "sharp"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** Every track in path order, with whether its album has a cover (read-only). */
const libraryTracks = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ id: string; album_id: string; covered: boolean }>`
      SELECT t.id, t.album_id, a.cover_art_source IS NOT NULL AS covered
      FROM tracks t JOIN albums a ON a.id = t.album_id ORDER BY t.path`,
    (rows) => rows.map((row) => ({ ...row, id: TrackId.make(row.id) })),
  ),
)

/** A fresh listener owning one playlist of the first two tracks. */
const aliceWithPlaylist = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const tracks = yield* libraryTracks
  const playlist = yield* alice.client.playlists.create({
    payload: { name: "Road trip", track_ids: [tracks[0]!.id, tracks[1]!.id] },
  })
  return { alice, tracks, playlist }
})

const titles = (detail: { tracks: ReadonlyArray<{ track: { id: string } }> }) =>
  detail.tracks.map((entry) => entry.track.id)

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("playlists", (it) => {
  it.scoped("create answers 201 with the detail and publishes playlist.created to the owner", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const tracks = yield* libraryTracks
      const events = yield* openSse(yield* serverUrl, alice.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      const [detail, response] = yield* alice.client.playlists.create({
        payload: { name: "Road trip", description: "for the car", track_ids: [tracks[0]!.id, tracks[1]!.id] },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      expect(detail).toMatchObject({
        name: "Road trip",
        description: "for the car",
        system_variant: null,
        refreshable: false,
        track_count: 2,
      })
      expect(detail.tracks.map((entry) => entry.position)).toEqual([0, 1])
      expect(titles(detail)).toEqual([tracks[0]!.id, tracks[1]!.id])
      const [created] = yield* events.waitFor((frame) => frame.event === "playlist.created")
      expect(created!.data).toMatchObject({ data: { playlist_id: detail.id } })
      const list = yield* alice.client.playlists.list()
      expect(list.map((row) => row.id)).toEqual([detail.id])
      expect(Object.keys(list[0]!).sort()).toEqual(
        [
          "duration_ms",
          "id",
          "locked",
          "locked_reason",
          "name",
          "refreshable",
          "smart",
          "system_variant",
          "track_count",
          "updated_at",
        ].sort(),
      )
    }),
  )

  it.scoped("append, insert at a position, remove and reorder, each publishing playlist.tracks_changed", () =>
    Effect.gen(function* () {
      const { alice, tracks, playlist } = yield* aliceWithPlaylist
      const events = yield* openSse(yield* serverUrl, alice.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      const id = playlist.id
      const appended = yield* alice.client.playlists.addTracks({
        path: { id },
        payload: { track_ids: [tracks[2]!.id] },
      })
      expect(titles(appended)).toEqual([tracks[0]!.id, tracks[1]!.id, tracks[2]!.id])
      const inserted = yield* alice.client.playlists.addTracks({
        path: { id },
        payload: { track_ids: [tracks[3]!.id, tracks[0]!.id], position: 1 },
      })
      expect(titles(inserted)).toEqual([tracks[0]!.id, tracks[3]!.id, tracks[0]!.id, tracks[1]!.id, tracks[2]!.id])
      expect(inserted.tracks.map((entry) => entry.position)).toEqual([0, 1, 2, 3, 4])
      // Removing by entry id removes that occurrence only, even when the track appears twice.
      const removed = yield* alice.client.playlists.removeEntries({
        path: { id },
        payload: { entry_ids: [inserted.tracks[2]!.entry_id] },
      })
      expect(titles(removed)).toEqual([tracks[0]!.id, tracks[3]!.id, tracks[1]!.id, tracks[2]!.id])
      const reversed = [...removed.tracks].reverse().map((entry) => entry.entry_id)
      const reordered = yield* alice.client.playlists.reorder({ path: { id }, payload: { entry_ids: reversed } })
      expect(reordered.tracks.map((entry) => entry.entry_id)).toEqual(reversed)
      expect(reordered.tracks.map((entry) => entry.position)).toEqual([0, 1, 2, 3])
      const changed = yield* events.waitFor((frame) => frame.event === "playlist.tracks_changed", 4)
      expect(changed).toHaveLength(4)
      // A reorder that is not a permutation of the entries is refused.
      const partial = yield* alice.client.playlists
        .reorder({ path: { id }, payload: { entry_ids: reversed.slice(1) } })
        .pipe(Effect.flip)
      expect(partial._tag).toBe("InvalidRequest")
      const unknownTrack = yield* alice.client.playlists
        .addTracks({ path: { id }, payload: { track_ids: [TrackId.make(crypto.randomUUID())] } })
        .pipe(Effect.flip)
      expect(unknownTrack._tag).toBe("NotFound")
      expect(titles(yield* alice.client.playlists.get({ path: { id } }))).toEqual(titles(reordered))
    }),
  )

  it.scoped("rename and delete publish playlist.updated and playlist.deleted", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const events = yield* openSse(yield* serverUrl, alice.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      const scratch = yield* alice.client.playlists.create({ payload: { name: "scratch" } })
      const renamed = yield* alice.client.playlists.update({
        path: { id: scratch.id },
        payload: { name: "kept", description: null },
      })
      expect(renamed).toMatchObject({ name: "kept", description: null })
      yield* alice.client.playlists.delete({ path: { id: scratch.id } })
      expect((yield* alice.client.playlists.get({ path: { id: scratch.id } }).pipe(Effect.flip))._tag).toBe("NotFound")
      const kinds = yield* events.waitFor((frame) => frame.type === "event", 3)
      expect(kinds.map((frame) => frame.event)).toEqual(["playlist.created", "playlist.updated", "playlist.deleted"])
    }),
  )

  it.effect("another user's playlist is 404 on every route, and stays as it was", () =>
    Effect.gen(function* () {
      const { alice, tracks, playlist } = yield* aliceWithPlaylist
      const bob = yield* aUser("bob")
      const id = playlist.id
      const before = yield* alice.client.playlists.get({ path: { id } })
      const attempts = [
        bob.client.playlists.get({ path: { id } }),
        bob.client.playlists.update({ path: { id }, payload: { name: "mine now" } }),
        bob.client.playlists.addTracks({ path: { id }, payload: { track_ids: [tracks[0]!.id] } }),
        bob.client.playlists.removeEntries({ path: { id }, payload: { entry_ids: [before.tracks[0]!.entry_id] } }),
        bob.client.playlists.reorder({
          path: { id },
          payload: { entry_ids: before.tracks.map((entry) => entry.entry_id) },
        }),
        bob.client.playlists.delete({ path: { id } }),
      ]
      for (const attempt of attempts) expect((yield* Effect.flip(attempt))._tag).toBe("NotFound")
      expect((yield* raw("GET", `/api/playlists/${id}/cover`, { token: bob.token })).status).toBe(404)
      expect(yield* alice.client.playlists.get({ path: { id } })).toEqual(before)
      expect(yield* bob.client.playlists.list()).toEqual([])
    }),
  )

  it.effect("system playlists are readable but not editable (409); shuffle is only for singleton kinds", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const tracks = yield* libraryTracks
      const sql = yield* SqlClient.SqlClient
      const [system] = yield* sql<{ id: string }>`
        INSERT INTO playlists (owner_id, name, system_variant, created_at, updated_at)
        VALUES (${alice.user.id}, 'Daily Mix 1', 'daily_mix:1', now(), now()) RETURNING id`
      const id = PlaylistId.make(system!.id)
      yield* sql`INSERT INTO playlist_tracks (playlist_id, track_id, position, pick_kind, added_at)
                 VALUES (${id}, ${tracks[0]!.id}, 0, 'tier1', now())`
      const detail = yield* alice.client.playlists.get({ path: { id } })
      expect(detail).toMatchObject({ system_variant: "daily_mix:1", refreshable: false })
      expect(detail.tracks[0]!.pick_kind).toBe("tier1")
      for (const attempt of [
        alice.client.playlists.update({ path: { id }, payload: { name: "x" } }),
        alice.client.playlists.addTracks({ path: { id }, payload: { track_ids: [tracks[1]!.id] } }),
        alice.client.playlists.delete({ path: { id } }),
      ]) {
        expect((yield* Effect.flip(attempt))._tag).toBe("Conflict")
      }
      for (const kind of ["daily_mix:1", "songs_like_artist:x", "nonsense", "rediscover"]) {
        const response = yield* raw("GET", `/api/playlists/system/${encodeURIComponent(kind)}/shuffle`, {
          token: alice.token,
        })
        expect(response.status).toBe(404)
        expect(response.json).toMatchObject({ error: { code: "not_refreshable" } })
      }
    }),
  )

  it.effect("an absent or empty singleton snapshot shuffles to 200 with no tracks", () =>
    Effect.gen(function* () {
      const bob = yield* aUser("bob")
      const shuffled = yield* bob.client.systemPlaylists.shuffle({ path: { kind: "discover" } })
      expect(shuffled).toMatchObject({ system_variant: "discover", refreshable: true, tracks: [] })
    }),
  )

  it.effect("the rotation shuffle lists unheard tracks first, then heard; a full rotation resets", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const tracks = yield* libraryTracks
      const sql = yield* SqlClient.SqlClient
      const [forYou] = yield* sql<{ id: string }>`
        INSERT INTO playlists (owner_id, name, system_variant, created_at, updated_at)
        VALUES (${alice.user.id}, 'For You', 'for_you', now(), now()) RETURNING id`
      const snapshot = tracks.slice(0, 6)
      for (const [position, track] of snapshot.entries()) {
        yield* sql`INSERT INTO playlist_tracks (playlist_id, track_id, position, pick_kind, added_at)
                   VALUES (${forYou!.id}, ${track.id}, ${position}, ${position < 3 ? "taste" : "fresh"}, now())`
      }
      const heard = [snapshot[1]!.id, snapshot[4]!.id]
      for (const track of heard) {
        yield* alice.client.plays.report({
          payload: { type: "play_started", track_id: track, client_id: "c", source: "for_you" },
        })
      }
      const first = yield* alice.client.systemPlaylists.shuffle({ path: { kind: "for_you" } })
      expect(first.tracks).toHaveLength(6)
      expect(new Set(titles(first).slice(4))).toEqual(new Set(heard))
      expect(new Set(titles(first).slice(0, 4))).toEqual(
        new Set(snapshot.map((t) => t.id).filter((t) => !heard.includes(t))),
      )
      // GET of the playlist itself is never reordered by rotation.
      const plain = yield* alice.client.playlists.get({ path: { id: PlaylistId.make(forYou!.id) } })
      expect(titles(plain)).toEqual(snapshot.map((t) => t.id))
      // Hear everything: the next shuffle resets the state and reshuffles the full list.
      for (const track of snapshot) {
        yield* alice.client.plays.report({
          payload: { type: "play_started", track_id: track.id, client_id: "c", source: "for_you" },
        })
      }
      const reset = yield* alice.client.systemPlaylists.shuffle({ path: { kind: "for_you" } })
      expect(new Set(titles(reset))).toEqual(new Set(snapshot.map((t) => t.id)))
      const [state] = yield* sql<{ played_track_ids: Array<string> }>`
        SELECT played_track_ids FROM rotation_states WHERE user_id = ${alice.user.id} AND playlist_kind = 'for_you'`
      expect(state!.played_track_ids).toEqual([])
      // Shuffles vary per call.
      const orders = new Set<string>()
      for (let i = 0; i < 8; i++)
        orders.add(titles(yield* alice.client.systemPlaylists.shuffle({ path: { kind: "for_you" } })).join())
      expect(orders.size).toBeGreaterThan(1)
    }),
  )

  it.effect("the collage: 2×2 of four distinct album covers, the first cover alone when fewer; 404 when none", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const tracks = yield* libraryTracks
      const covered = new Map<string, TrackId>()
      for (const track of tracks)
        if (track.covered && !covered.has(track.album_id)) covered.set(track.album_id, track.id)
      const four = [...covered.values()].slice(0, 4)
      expect(four).toHaveLength(4)
      const full = yield* alice.client.playlists.create({ payload: { name: "covers", track_ids: four } })
      const collage = yield* raw("GET", `/api/playlists/${full.id}/cover`, { token: alice.token })
      expect(collage.status).toBe(200)
      expect(collage.headers.get("content-type")).toBe("image/jpeg")
      expect(collage.headers.get("cache-control")).toBe("max-age=300, must-revalidate")
      const meta = yield* Effect.promise(() => sharp(collage.bytes).metadata())
      expect([meta.width, meta.height]).toEqual([600, 600])
      const etag = collage.headers.get("etag")!
      expect(
        (yield* raw("GET", `/api/playlists/${full.id}/cover`, {
          token: alice.token,
          headers: { "if-none-match": etag },
        })).status,
      ).toBe(304)
      const single = yield* alice.client.playlists.create({ payload: { name: "one", track_ids: four.slice(0, 2) } })
      const alone = yield* raw("GET", `/api/playlists/${single.id}/cover`, { token: alice.token })
      expect(alone.status).toBe(200)
      expect(alone.headers.get("etag")).not.toBe(etag)
      const bare = tracks.find((track) => !track.covered)!
      const none = yield* alice.client.playlists.create({ payload: { name: "bare", track_ids: [bare.id] } })
      expect((yield* raw("GET", `/api/playlists/${none.id}/cover`, { token: alice.token })).status).toBe(404)
    }),
  )

  it.effect("bad playlist input is 400 and stores nothing", () =>
    Effect.gen(function* () {
      const { alice } = yield* aliceWithPlaylist
      const before = (yield* alice.client.playlists.list()).length
      for (const body of [{ name: "" }, { name: "   " }, { name: 5 }, {}, { name: "x", track_ids: ["nope"] }]) {
        expect((yield* rawJson("POST", "/api/playlists", body, alice.token)).status).toBe(400)
      }
      // Names are trimmed.
      const trimmed = yield* rawJson("POST", "/api/playlists", { name: "  Spaced  " }, alice.token)
      expect((trimmed.json as { name: string }).name).toBe("Spaced")
      yield* alice.client.playlists.delete({ path: { id: (trimmed.json as { id: PlaylistId }).id } })
      const [playlist] = yield* alice.client.playlists.list()
      const badRemove = yield* rawJson(
        "DELETE",
        `/api/playlists/${playlist!.id}/tracks`,
        { entry_ids: [] },
        alice.token,
      )
      expect(badRemove.status).toBe(400)
      const unknownEntry = yield* alice.client.playlists
        .removeEntries({
          path: { id: playlist!.id },
          payload: { entry_ids: [PlaylistEntryId.make(crypto.randomUUID())] },
        })
        .pipe(Effect.flip)
      expect(unknownEntry._tag).toBe("NotFound")
      expect((yield* alice.client.playlists.list()).length).toBe(before)
    }),
  )
})
