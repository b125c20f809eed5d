import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { PlaybackErrorId, TrackId } from "@tonearm/core"
import { Effect, Exit, Layer } from "effect"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(12, 5)
const UNKNOWN = "00000000-0000-4000-8000-000000000000"

const report = (who: SignedIn, body: unknown) => rawJson("POST", "/api/playback-errors", body, who.token)

/** A fresh listener and the library's tracks (read-only). */
const aListener = Effect.all({ alice: aUser("alice"), tracks: libraryTracks })

/**
 * The admin list is server-wide: the table is emptied, then a fresh Alice reports three errors (load_failed on
 * the first track from android-1, then stalled and zero_duration on the second from web-7).
 */
const threeReported = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM playback_errors`
  const { alice, tracks } = yield* aListener
  yield* alice.client.playbackErrors.report({
    payload: { track_id: tracks[0]!.id, kind: "load_failed", client_id: "android-1", message: "HTTP 500" },
  })
  for (const kind of ["stalled", "zero_duration"])
    yield* report(alice, { track_id: tracks[1]!.id, kind, client_id: "web-7" })
  return { alice, tracks }
})

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("diagnostics: playback errors", (it) => {
  it.effect("any signed-in user reports a playback error on a track: 201 {id}", () =>
    Effect.gen(function* () {
      const { alice, tracks } = yield* aListener
      const [created, response] = yield* alice.client.playbackErrors.report({
        payload: { track_id: tracks[0]!.id, kind: "load_failed", client_id: "android-1", message: "HTTP 500" },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/)
      for (const kind of ["stalled", "zero_duration"]) {
        const ok = yield* report(alice, { track_id: tracks[1]!.id, kind, client_id: "web-7" })
        expect(ok.status).toBe(201)
      }
    }),
  )

  it.effect("the track must exist: an unknown track is 404 not_found", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const response = yield* report(alice, { track_id: UNKNOWN, kind: "stalled", client_id: "c" })
      expect(response.status).toBe(404)
      expect(response.json).toMatchObject({ error: { code: "not_found" } })
    }),
  )

  it.effect("the kind whitelist: an unknown kind is 400 unknown_kind", () =>
    Effect.gen(function* () {
      const { alice, tracks } = yield* aListener
      const response = yield* report(alice, { track_id: tracks[0]!.id, kind: "exploded", client_id: "c" })
      expect(response.status).toBe(400)
      expect(response.json).toMatchObject({ error: { code: "unknown_kind" } })
      // The database refuses one too (CHECK), whatever the code does.
      const sql = yield* SqlClient.SqlClient
      const direct = yield* sql`
          INSERT INTO playback_errors (track_id, user_id, client_id, kind, track_title, album_title, artist_name, created_at)
          VALUES (${tracks[0]!.id}, ${alice.user.id}, 'c', 'exploded', 't', 'a', 'b', now())`.pipe(Effect.exit)
      expect(Exit.isFailure(direct)).toBe(true)
    }),
  )

  it.effect("client_id is required: absent or blank is a 400 envelope; so is a malformed track id", () =>
    Effect.gen(function* () {
      const { alice, tracks } = yield* aListener
      for (const body of [
        { track_id: tracks[0]!.id, kind: "stalled" },
        { track_id: tracks[0]!.id, kind: "stalled", client_id: "   " },
        { track_id: "nope", kind: "stalled", client_id: "c" },
        { kind: "stalled", client_id: "c" },
      ]) {
        const response = yield* report(alice, body)
        expect(response.status).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
      }
      const anonymous = yield* rawJson("POST", "/api/playback-errors", {
        track_id: tracks[0]!.id,
        kind: "stalled",
        client_id: "c",
      })
      expect(anonymous.status).toBe(401)
    }),
  )

  it.effect("admins list rows joined with track, album and artist names, newest first, filtered by resolved", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const { alice, tracks } = yield* threeReported
      const page = yield* admin.client.adminPlaybackErrors.list({ urlParams: {} })
      expect(page.total).toBe(3)
      expect(page.offset).toBe(0)
      expect(page.limit).toBe(50)
      const oldest = page.items[page.items.length - 1]!
      expect(oldest).toMatchObject({
        track_id: tracks[0]!.id,
        user_id: alice.user.id,
        username: alice.user.username,
        client_id: "android-1",
        kind: "load_failed",
        message: "HTTP 500",
        resolved_at: null,
        resolution: null,
      })
      const sql = yield* SqlClient.SqlClient
      const [names] = yield* sql<{ title: string; album_title: string; artist_name: string }>`
          SELECT t.title, al.title AS album_title, ar.name AS artist_name
          FROM tracks t JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = t.artist_id
          WHERE t.id = ${tracks[0]!.id}`
      expect(oldest.track_title).toBe(names!.title)
      expect(oldest.album_title).toBe(names!.album_title)
      expect(oldest.artist_name).toBe(names!.artist_name)
      const paged = yield* admin.client.adminPlaybackErrors.list({ urlParams: { offset: 1, limit: 1 } })
      expect(paged.items.map((row) => row.id)).toEqual([page.items[1]!.id])
    }),
  )

  it.effect("the list page is clamped at 200", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const page = yield* admin.client.adminPlaybackErrors.list({ urlParams: { limit: 1000 } })
      expect(page.limit).toBe(200)
      const bad = yield* raw("GET", "/api/admin/playback-errors?limit=abc", { token: admin.token })
      expect(bad.status).toBe(400)
      expect(bad.json).toMatchObject({ error: { code: "invalid_request" } })
    }),
  )

  it.effect("admin resolve: unresolved becomes resolved with a resolution; twice is 409; unknown id 404", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      yield* threeReported
      const page = yield* admin.client.adminPlaybackErrors.list({ urlParams: { resolved: false } })
      const target = page.items[0]!
      const resolved = yield* admin.client.adminPlaybackErrors.resolve({
        path: { id: target.id },
        payload: { resolution: "fixed" },
      })
      expect(resolved.resolution).toBe("fixed")
      expect(resolved.resolved_at).not.toBeNull()
      const open = yield* admin.client.adminPlaybackErrors.list({ urlParams: { resolved: false } })
      expect(open.items.map((row) => row.id)).not.toContain(target.id)
      const closed = yield* admin.client.adminPlaybackErrors.list({ urlParams: { resolved: true } })
      expect(closed.items.map((row) => row.id)).toEqual([target.id])
      const twice = yield* rawJson(
        "POST",
        `/api/admin/playback-errors/${target.id}/resolve`,
        { resolution: "ignored" },
        admin.token,
      )
      expect(twice.status).toBe(409)
      expect(twice.json).toMatchObject({ error: { code: "conflict" } })
      const unknown = yield* rawJson(
        "POST",
        `/api/admin/playback-errors/${UNKNOWN}/resolve`,
        { resolution: "fixed" },
        admin.token,
      )
      expect(unknown.status).toBe(404)
      const badResolution = yield* rawJson(
        "POST",
        `/api/admin/playback-errors/${open.items[0]!.id}/resolve`,
        { resolution: "shrugged" },
        admin.token,
      )
      expect(badResolution.status).toBe(400)
      for (const resolution of ["ignored", "hidden"] as const) {
        const next = (yield* admin.client.adminPlaybackErrors.list({ urlParams: { resolved: false } })).items[0]!
        const done = yield* admin.client.adminPlaybackErrors.resolve({
          path: { id: PlaybackErrorId.make(next.id) },
          payload: { resolution },
        })
        expect(done.resolution).toBe(resolution)
      }
    }),
  )

  it.effect("admin routes refuse a non-admin with 403, even on their own error's id", () =>
    Effect.gen(function* () {
      const { alice, tracks } = yield* aListener
      const created = yield* alice.client.playbackErrors.report({
        payload: { track_id: TrackId.make(tracks[2]!.id), kind: "stalled", client_id: "c" },
      })
      const list = yield* raw("GET", "/api/admin/playback-errors", { token: alice.token })
      expect(list.status).toBe(403)
      expect(list.json).toMatchObject({ error: { code: "forbidden" } })
      const resolve = yield* rawJson(
        "POST",
        `/api/admin/playback-errors/${created.id}/resolve`,
        { resolution: "fixed" },
        alice.token,
      )
      expect(resolve.status).toBe(403)
    }),
  )
})
