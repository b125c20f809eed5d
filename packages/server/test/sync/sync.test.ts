import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, type SyncPage, TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** Every track id in path order, and the first album by title (read-only). */
const libraryIds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const trackIds = (yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY path`).map((row) => TrackId.make(row.id))
  const [firstAlbum] = yield* sql<{ id: string }>`SELECT id FROM albums ORDER BY title LIMIT 1`
  return { trackIds, firstAlbum: AlbumId.make(firstAlbum!.id) }
})

/** A fresh listener with a playlist of three tracks and a liked album. */
const aliceWithLikesAndPlaylist = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const { trackIds, firstAlbum } = yield* libraryIds
  yield* alice.client.playlists.create({ payload: { name: "mix", track_ids: trackIds.slice(0, 3) } })
  yield* alice.client.likes.likeAlbum({ path: { id: firstAlbum } })
  return alice
})

const KEYS = [
  "artists",
  "albums",
  "tracks",
  "playlists",
  "like_track",
  "like_album",
  "like_artist",
  "playlist_track",
] as const
type Key = (typeof KEYS)[number]

/** A client's offline copy: entity key → id → the last state it received. */
type Model = Record<Key, Map<string, unknown>>
const emptyModel = (): Model => Object.fromEntries(KEYS.map((key) => [key, new Map()])) as Model

const idOf = (key: Key, item: Record<string, unknown>): string => {
  if (key === "like_track") return item.track_id as string
  if (key === "like_album") return item.album_id as string
  if (key === "like_artist") return item.artist_id as string
  if (key === "playlist_track") return item.entry_id as string
  return item.id as string
}

const apply = (model: Model, page: SyncPage) => {
  for (const key of KEYS) {
    for (const item of page.upserts[key] as ReadonlyArray<Record<string, unknown>>) {
      model[key].set(idOf(key, item), JSON.parse(JSON.stringify(item)))
    }
    for (const id of page.deletes[key]) model[key].delete(id)
  }
}

/** Syncs from a cursor to the end in pages of `limit`, counting how often each entity arrived. */
const syncFrom = (who: SignedIn, cursor: string | undefined, model: Model, limit = 7) =>
  Effect.gen(function* () {
    let next = cursor
    const seen = new Map<string, number>()
    for (;;) {
      const page = yield* who.client.sync.changes({
        urlParams: { limit, ...(next === undefined ? {} : { cursor: next }) },
      })
      apply(model, page)
      for (const key of KEYS) {
        for (const item of page.upserts[key] as ReadonlyArray<Record<string, unknown>>) {
          const tag = `${key}:${idOf(key, item)}`
          seen.set(tag, (seen.get(tag) ?? 0) + 1)
        }
      }
      next = page.cursor
      if (!page.has_more) return { cursor: next, seen }
    }
  })

const snapshot = (model: Model) =>
  Object.fromEntries(
    KEYS.map((key) => [key, Object.fromEntries([...model[key].entries()].sort(([a], [b]) => (a < b ? -1 : 1)))]),
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("library sync", (it) => {
  it.effect("a first sync brings the whole library in snake_case objects with YYYY-MM-DD dates", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const model = emptyModel()
      const { seen } = yield* syncFrom(alice, undefined, model, 500)
      const sql = yield* SqlClient.SqlClient
      const counts = (yield* sql<{ artists: number; albums: number; tracks: number }>`
        SELECT (SELECT count(*)::int FROM artists) AS artists, (SELECT count(*)::int FROM albums) AS albums,
               (SELECT count(*)::int FROM tracks) AS tracks`)[0]!
      expect({ artists: model.artists.size, albums: model.albums.size, tracks: model.tracks.size }).toEqual(counts)
      expect([...seen.values()].every((times) => times === 1)).toBe(true)
      const album = [...model.albums.values()].find(
        (item) => (item as { release_date: string | null }).release_date !== null,
      ) as Record<string, unknown>
      expect(album.release_date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(Object.keys(album)).toContain("artist_id")
      expect(album.id).toMatch(/^[0-9a-f-]{36}$/)
    }),
  )

  it.effect("syncing from every intermediate cursor reaches the same final state, with nothing duplicated", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { trackIds, firstAlbum } = yield* libraryIds
      // One client syncs at every checkpoint; each checkpoint keeps a copy of the state it had there.
      const client = emptyModel()
      const copy = (model: Model): Model => Object.fromEntries(KEYS.map((key) => [key, new Map(model[key])])) as Model
      const saved: Array<{ cursor: string | undefined; model: Model }> = [{ cursor: undefined, model: emptyModel() }]
      const checkpoint = Effect.gen(function* () {
        const { cursor } = yield* syncFrom(alice, saved.at(-1)!.cursor, client, 500)
        saved.push({ cursor, model: copy(client) })
      })
      yield* checkpoint
      const playlist = yield* alice.client.playlists.create({
        payload: { name: "mix", track_ids: trackIds.slice(0, 3) },
      })
      yield* checkpoint
      yield* alice.client.likes.likeTrack({ path: { id: trackIds[0]! } })
      yield* alice.client.likes.likeAlbum({ path: { id: firstAlbum } })
      yield* checkpoint
      yield* alice.client.playlists.addTracks({ path: { id: playlist.id }, payload: { track_ids: [trackIds[5]!] } })
      const detail = yield* alice.client.playlists.get({ path: { id: playlist.id } })
      yield* alice.client.playlists.removeEntries({
        path: { id: playlist.id },
        payload: { entry_ids: [detail.tracks[0]!.entry_id] },
      })
      yield* alice.client.likes.unlikeTrack({ path: { id: trackIds[0]! } })
      yield* checkpoint
      // The library changes too: a removed file, a new one.
      const file = path.join(root, "Static Harbor/Raw Takes/02 Take Two.aac")
      fs.renameSync(file, path.join(root, "Static Harbor/Raw Takes/04 Take Four.aac"))
      yield* scanNow()
      yield* checkpoint
      yield* alice.client.playlists.update({ path: { id: playlist.id }, payload: { name: "mix 2" } })
      yield* checkpoint

      // The truth: a fresh sync from nothing.
      const truth = emptyModel()
      yield* syncFrom(alice, undefined, truth, 1000)
      expect(truth.playlists.size).toBe(1)
      expect(truth.like_album.size).toBe(1)
      expect(truth.like_track.size).toBe(0)
      expect(truth.playlist_track.size).toBe(3)

      // From each cursor, starting from the state the client had there, in small pages.
      for (const [index, { cursor, model }] of saved.entries()) {
        const resumed = yield* syncFrom(alice, cursor, model, 3)
        expect({ index, state: snapshot(model) }).toEqual({ index, state: snapshot(truth) })
        expect([...resumed.seen.values()].every((times) => times === 1)).toBe(true)
      }
    }),
  )

  it.effect("a client that stopped at a cursor and resumes later converges on the server's state", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { trackIds } = yield* libraryIds
      const model = emptyModel()
      const { cursor } = yield* syncFrom(alice, undefined, model, 5)
      yield* alice.client.likes.likeTrack({ path: { id: trackIds[1]! } })
      const scratch = yield* alice.client.playlists.create({ payload: { name: "tmp", track_ids: [trackIds[2]!] } })
      yield* alice.client.playlists.delete({ path: { id: scratch.id } })
      yield* syncFrom(alice, cursor, model, 2)
      const truth = emptyModel()
      yield* syncFrom(alice, undefined, truth, 1000)
      expect(snapshot(model)).toEqual(snapshot(truth))
      expect(model.like_track.has(trackIds[1]!)).toBe(true)
      expect(model.playlists.has(scratch.id)).toBe(false)
    }),
  )

  it.effect("another user's likes and playlists never appear in a sync", () =>
    Effect.gen(function* () {
      yield* aliceWithLikesAndPlaylist // someone else's likes and playlist exist
      const bob = yield* aUser("bob")
      const model = emptyModel()
      yield* syncFrom(bob, undefined, model, 1000)
      expect(model.playlists.size).toBe(0)
      expect(model.like_album.size + model.like_track.size + model.playlist_track.size).toBe(0)
      expect(model.tracks.size).toBeGreaterThan(0)
    }),
  )

  it.effect("like and playlist-track entities are flat string maps", () =>
    Effect.gen(function* () {
      const alice = yield* aliceWithLikesAndPlaylist
      const page = yield* alice.client.sync.changes({ urlParams: { limit: 5000 } })
      for (const item of [...page.upserts.like_album, ...page.upserts.playlist_track]) {
        for (const value of Object.values(item)) expect(typeof value).toBe("string")
      }
      expect(page.upserts.playlist_track[0]).toMatchObject({ position: expect.stringMatching(/^\d+$/) })
    }),
  )

  it.effect("a cursor the server did not issue is 400 invalid_request", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      for (const cursor of ["garbage", "djE6LTE", "%%%"]) {
        const response = yield* raw("GET", `/api/library/sync?cursor=${encodeURIComponent(cursor)}`, {
          token: alice.token,
        })
        expect(response.status).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
      }
    }),
  )
})
