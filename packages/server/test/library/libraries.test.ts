import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { EventBus } from "../../src/events/index.js"
import { Scanner } from "../../src/library/index.js"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { raw, rawJson } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(60, 27)
/** The second library's folder: other music, scanned as library 2. */
const second = await syntheticLibrary(30, 28)

interface LibraryScan {
  readonly library_id: number
  readonly state: string
  readonly finished_at: string | null
  readonly files_seen: number
  readonly message: string | null
}

/** Waits until a library's latest scan has ended (its row is written before its lock goes), and answers it. */
const scanEnded = (token: string, libraryId: number, after?: string) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 600; attempt++) {
      const status = (yield* raw("GET", "/api/admin/scan", { token })).json as { libraries: Array<LibraryScan> }
      const scan = status.libraries.find((one) => one.library_id === libraryId)
      if (
        scan !== undefined &&
        scan.state !== "running" &&
        scan.finished_at !== null &&
        (after === undefined || scan.finished_at > after)
      ) {
        return scan
      }
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.die(new Error(`library ${libraryId}'s scan did not end`))
  })

interface Hidden {
  readonly tracks: ReadonlyArray<string>
  readonly albums: ReadonlyArray<string>
  readonly artists: ReadonlyArray<string>
}

/** Every id only library 2 holds (an artist credited in both libraries stays visible). */
const hiddenIds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)
  return {
    tracks: ids(yield* sql<{ id: string }>`SELECT id FROM tracks WHERE library_id = 2`),
    albums: ids(yield* sql<{ id: string }>`SELECT id FROM albums WHERE library_id = 2`),
    artists: ids(
      yield* sql<{ id: string }>`
        SELECT id FROM artists EXCEPT SELECT id FROM visible_artists(${[1]}::int[])`,
    ),
  } satisfies Hidden
})

const leaks = (text: string, hidden: Hidden) =>
  [...hidden.tracks, ...hidden.albums, ...hidden.artists].filter((id) => text.includes(id))

/** Routes that answer the caller's own data or none of the catalogue's, with no id of it to leak. */
const OPERATION_PARAMS: Record<string, (hidden: Hidden) => string | undefined> = {
  "/api/albums/{id}": (hidden) => hidden.albums[0],
  "/api/albums/{id}/cover": (hidden) => hidden.albums[0],
  "/api/artists/{id}": (hidden) => hidden.artists[0],
  "/api/artists/{id}/image": (hidden) => hidden.artists[0],
  "/api/tracks/{id}/lyrics": (hidden) => hidden.tracks[0],
}

/** Every GET route of /openapi.json called by `token`: the routes checked, and those that named a hidden id. */
const sweep = (token: string, hidden: Hidden, extra: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const document = (yield* raw("GET", "/openapi.json")).json as { paths: Record<string, Record<string, unknown>> }
    const checked: Array<string> = []
    const leaking: Array<string> = []
    for (const [template, methods] of Object.entries(document.paths)) {
      if (!("get" in methods) || template === "/api/events/stream") continue
      const hasParams = template.includes("{")
      const param = extra[template] ?? OPERATION_PARAMS[template]?.(hidden)
      if (hasParams && param === undefined) continue
      const url = hasParams ? template.replace(/\{[^}]+\}/, param!) : template
      const answer = yield* raw("GET", url, { token })
      checked.push(template)
      if (answer.status >= 500) leaking.push(`${template}: ${answer.status}`)
      // Sync answers what the caller cannot hear as deletes (a client that had it drops it): only upserts carry data.
      const text =
        template === "/api/library/sync" ? JSON.stringify((answer.json as { upserts: unknown }).upserts) : answer.text
      const found = leaks(text, hidden)
      if (found.length > 0) leaking.push(`${template}: ${found.length} ids`)
    }
    return { checked, leaking }
  })

layer(TestServerLive({ libraryDir: root, libraryDirs: [root] }), { excludeTestServices: true, timeout: "240 seconds" })(
  "multiple libraries",
  (it) => {
    let admin: SignedIn
    let kid: SignedIn
    let hidden: Hidden

    it.effect("an admin adds a second library; a user limited to the first hears only it", () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        kid = yield* createAndLogIn(admin.client, "kid")
        // A user created before the library existed heard every library then: only the first.
        const added = yield* rawJson("POST", "/api/admin/libraries", { name: "Audiobooks", path: second }, admin.token)
        expect(added.status).toBe(201)
        expect(added.json).toMatchObject({ id: 2, name: "Audiobooks", path: second })
        // A library added is scanned at once, on its own.
        const scanned = yield* scanEnded(admin.token, 2)
        expect(scanned).toMatchObject({ state: "idle", files_seen: 30 })
        hidden = yield* hiddenIds
        expect(hidden.tracks.length).toBeGreaterThan(5)
        expect(hidden.albums.length).toBeGreaterThan(1)

        const kidAccess = yield* raw("GET", `/api/admin/users/${kid.user.id}/libraries`, { token: admin.token })
        expect(kidAccess.json).toEqual({ library_ids: [1] })
        const adminList = yield* raw("GET", "/api/library/libraries", { token: admin.token })
        expect((adminList.json as { items: Array<{ id: number }> }).items.map((item) => item.id)).toEqual([1, 2])
        const kidList = yield* raw("GET", "/api/library/libraries", { token: kid.token })
        expect((kidList.json as { items: Array<{ id: number }> }).items.map((item) => item.id)).toEqual([1])
      }),
    )

    it.effect("browse, search and shuffle show a limited user none of the other library; an admin sees both", () =>
      Effect.gen(function* () {
        const kidAlbums = yield* raw("GET", "/api/library/albums?limit=500", { token: kid.token })
        const adminAlbums = yield* raw("GET", "/api/library/albums?limit=500", { token: admin.token })
        const all = (adminAlbums.json as { total: number }).total
        expect((kidAlbums.json as { total: number }).total).toBe(all - hidden.albums.length)
        expect(leaks(kidAlbums.text, hidden)).toEqual([])
        expect(leaks(adminAlbums.text, hidden).length).toBeGreaterThan(0)
        // The library_id filter: the kid's library 2 is empty, the admin's holds exactly the moved albums.
        const kidSecond = yield* raw("GET", "/api/library/albums?limit=500&library_id=2", { token: kid.token })
        expect(kidSecond.json).toMatchObject({ items: [], total: 0 })
        const adminSecond = yield* raw("GET", "/api/library/albums?limit=500&library_id=2", { token: admin.token })
        expect((adminSecond.json as { items: Array<{ id: string }> }).items.map((a) => a.id).sort()).toEqual(
          [...hidden.albums].sort(),
        )
        const sql = yield* SqlClient.SqlClient
        const [title] = yield* sql<{ title: string }>`SELECT title FROM tracks WHERE id = ${hidden.tracks[0]!}`
        const found = yield* raw("GET", `/api/search?q=${encodeURIComponent(title!.title)}&limit=100`, {
          token: kid.token,
        })
        expect(found.status).toBe(200)
        expect(leaks(found.text, hidden)).toEqual([])
        const shuffled = yield* raw("GET", "/api/library/shuffle?limit=500", { token: kid.token })
        expect(leaks(shuffled.text, hidden)).toEqual([])
        expect((shuffled.json as { tracks: Array<unknown> }).tracks.length).toBeGreaterThan(0)
      }),
    )

    it.effect("an album, artist, cover or stream of the other library is 404 for the limited user", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [covered] = yield* sql<{ id: string }>`
          SELECT id FROM albums WHERE library_id = 2 AND cover_art_source IS NOT NULL LIMIT 1`
        expect(covered).toBeDefined()
        expect((yield* raw("GET", `/api/albums/${covered!.id}/cover`, { token: admin.token })).status).toBe(200)
        expect((yield* raw("GET", `/api/albums/${covered!.id}/cover`, { token: kid.token })).status).toBe(404)
        expect((yield* raw("GET", `/api/albums/${hidden.albums[0]}`, { token: kid.token })).status).toBe(404)
        expect((yield* raw("GET", `/api/tracks/${hidden.tracks[0]}/stream`, { token: kid.token })).status).toBe(404)
        expect((yield* raw("GET", `/api/tracks/${hidden.tracks[0]}/stream`, { token: admin.token })).status).toBe(200)
        expect((yield* raw("GET", `/api/albums/${hidden.albums[0]}`, { token: admin.token })).status).toBe(200)
        if (hidden.artists.length > 0) {
          expect((yield* raw("GET", `/api/artists/${hidden.artists[0]}`, { token: kid.token })).status).toBe(404)
        }
      }),
    )

    it.effect(
      "Subsonic: music folders are the user's libraries; musicFolderId filters; another library's ids are 70",
      () =>
        Effect.gen(function* () {
          const key = (
            (yield* rawJson("POST", "/api/me/api-keys", { name: "libs" }, kid.token)).json as { key: string }
          ).key
          const rest = (method: string, params: Record<string, string> = {}) =>
            raw(
              "GET",
              `/rest/${method}.view?${new URLSearchParams({ c: "t", v: "1.16.1", f: "json", apiKey: key, ...params })}`,
            )
          const folders = yield* rest("getMusicFolders")
          expect(
            (folders.json as { "subsonic-response": { musicFolders: { musicFolder: Array<{ id: number }> } } })[
              "subsonic-response"
            ].musicFolders.musicFolder.map((folder) => folder.id),
          ).toEqual([1])
          const list = yield* rest("getAlbumList2", { type: "alphabeticalByName", size: "500" })
          expect(list.status).toBe(200)
          expect(leaks(list.text, hidden)).toEqual([])
          const other = yield* rest("getAlbumList2", { type: "alphabeticalByName", size: "500", musicFolderId: "2" })
          expect(
            (other.json as { "subsonic-response": { albumList2: { album?: Array<unknown> } } })["subsonic-response"]
              .albumList2.album ?? [],
          ).toEqual([])
          const album = yield* rest("getAlbum", { id: hidden.albums[0]! })
          expect(
            (album.json as { "subsonic-response": { error?: { code: number } } })["subsonic-response"].error?.code,
          ).toBe(70)
          const stream = yield* rest("stream", { id: hidden.tracks[0]! })
          expect(stream.headers.get("content-type")).not.toMatch(/^audio\//)
          expect(leaks((yield* rest("search3", { query: "", songCount: "500" })).text, hidden)).toEqual([])
        }),
    )

    it.effect("every GET route of /openapi.json, called by the limited user, names nothing of the other library", () =>
      Effect.gen(function* () {
        const { checked, leaking } = yield* sweep(kid.token, hidden)
        expect(checked.length).toBeGreaterThan(40)
        expect(leaking).toEqual([])
      }),
    )

    it.effect(
      "a listener's likes, playlist entries and plays of a library taken away are hidden, not removed; radio and quarantine of it are 404; the sweep names none of it",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const give = (ids: ReadonlyArray<number>) =>
            rawJson("PUT", `/api/admin/users/${kid.user.id}/libraries`, { library_ids: ids }, admin.token)
          const [heard] = yield* sql<{ id: string }>`SELECT id FROM tracks WHERE library_id = 1 ORDER BY id LIMIT 1`
          const other = hidden.tracks[1]!
          expect((yield* give([1, 2])).status).toBe(200)
          expect((yield* raw("PUT", `/api/likes/tracks/${other}`, { token: kid.token })).status).toBe(204)
          const created = yield* rawJson(
            "POST",
            "/api/playlists",
            { name: "Mine", track_ids: [heard!.id, other] },
            kid.token,
          )
          expect(created.status).toBe(201)
          const playlist = (created.json as { id: string }).id
          const started = yield* rawJson(
            "POST",
            "/api/events",
            { type: "play_started", track_id: other, client_id: "kid-phone" },
            kid.token,
          )
          expect(started.status).toBe(201)
          expect((yield* give([1])).status).toBe(200)

          const likes = yield* raw("GET", "/api/likes", { token: kid.token })
          expect(leaks(likes.text, hidden)).toEqual([])
          const detail = yield* raw("GET", `/api/playlists/${playlist}`, { token: kid.token })
          expect((detail.json as { tracks: Array<{ track: { id: string } }> }).tracks.map((e) => e.track.id)).toEqual([
            heard!.id,
          ])
          const listed = (yield* raw("GET", "/api/playlists", { token: kid.token })).json as
            | Array<{ id: string; track_count: number }>
            | { items: Array<{ id: string; track_count: number }> }
          const rows = Array.isArray(listed) ? listed : listed.items
          expect(rows.find((item) => item.id === playlist)?.track_count).toBe(1)
          expect(leaks((yield* raw("GET", "/api/me/plays", { token: kid.token })).text, hidden)).toEqual([])
          // Stored all the same.
          const [entries] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM playlist_tracks WHERE playlist_id = ${playlist}`
          expect(entries!.n).toBe(2)
          const [liked] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM likes WHERE user_id = ${kid.user.id} AND entity_id = ${other}`
          expect(liked!.n).toBe(1)
          const [played] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM play_events WHERE user_id = ${kid.user.id} AND track_id = ${other}`
          expect(played!.n).toBe(1)

          const radio = yield* rawJson("POST", "/api/radio", { seed: { kind: "track", id: other } }, kid.token)
          expect(radio.status).toBe(404)
          const genreRadio = yield* rawJson("POST", "/api/radio", { seed: { kind: "track", id: heard!.id } }, kid.token)
          expect(leaks(genreRadio.text, hidden)).toEqual([])
          const flag = yield* rawJson("POST", `/api/tracks/${other}/quarantine`, { reason: "not mine" }, kid.token)
          expect(flag.status).toBe(404)
          // Adding it to a playlist is refused like an unknown track.
          const added = yield* rawJson("POST", `/api/playlists/${playlist}/tracks`, { track_ids: [other] }, kid.token)
          expect(added.status).toBeGreaterThanOrEqual(400)
          expect(added.status).toBeLessThan(500)

          const { leaking } = yield* sweep(kid.token, hidden, { "/api/playlists/{id}": playlist })
          expect(leaking).toEqual([])

          // Given back, nothing was lost.
          expect((yield* give([1, 2])).status).toBe(200)
          const again = yield* raw("GET", `/api/playlists/${playlist}`, { token: kid.token })
          expect((again.json as { tracks: Array<unknown> }).tracks).toHaveLength(2)
          expect((yield* raw("GET", "/api/likes", { token: kid.token })).text).toContain(other)
          expect((yield* give([1])).status).toBe(200)
        }),
    )

    it.scoped("the event stream carries no event naming a track of a library the listener does not hear", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const bus = yield* EventBus
        const [heard] = yield* sql<{ id: string }>`SELECT id FROM tracks WHERE library_id = 1 ORDER BY id LIMIT 1`
        const stream = yield* openSse(yield* serverUrl, kid.token)
        yield* stream.waitFor((frame) => frame.text === "connected")
        yield* bus.publish("quarantine.flagged", null, { track_id: hidden.tracks[2]! })
        yield* bus.publish("quarantine.flagged", null, { track_id: heard!.id })
        const [event] = yield* stream.waitFor((frame) => frame.type === "event", 1)
        expect(event!.data).toMatchObject({ data: { track_id: heard!.id } })
        yield* Effect.sleep("200 millis")
        expect(stream.frames.filter((frame) => frame.type === "event")).toHaveLength(1)
      }),
    )

    it.effect(
      "removing a library hides its tracks and keeps likes and playlists; adding its path back restores them",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const track = hidden.tracks[0]!
          yield* admin.client.likes.likeTrack({ path: { id: track as never } })
          const playlist = yield* admin.client.playlists.create({
            payload: { name: "Both", track_ids: [track as never] },
          })

          const entries = sql<{ n: number }>`SELECT count(*)::int AS n FROM playlist_tracks WHERE track_id = ${track}`
          const entriesBefore = (yield* entries)[0]!.n
          const likes = sql<{ n: number }>`SELECT count(*)::int AS n FROM likes WHERE entity_id = ${track}`
          const likesBefore = (yield* likes)[0]!.n
          expect(likesBefore).toBeGreaterThan(0)
          expect((yield* raw("DELETE", "/api/admin/libraries/2", { token: admin.token })).status).toBe(204)
          const [gone] = yield* sql<{ missing: boolean }>`
          SELECT missing_since IS NOT NULL AS missing FROM indexed_tracks WHERE id = ${track}`
          expect(gone!.missing).toBe(true)
          const adminAlbums = yield* raw("GET", "/api/library/albums?limit=500", { token: admin.token })
          expect(leaks(adminAlbums.text, { ...hidden, artists: [] })).toEqual([])
          const listed = yield* raw("GET", "/api/admin/libraries", { token: admin.token })
          expect((listed.json as { items: Array<{ id: number }> }).items.map((item) => item.id)).toEqual([1])
          expect((yield* likes)[0]!.n).toBe(likesBefore)
          expect((yield* entries)[0]!.n).toBe(entriesBefore)

          const again = yield* rawJson("POST", "/api/admin/libraries", { name: "Books", path: second }, admin.token)
          expect(again.status).toBe(201)
          expect(again.json).toMatchObject({ id: 2, name: "Books", track_count: hidden.tracks.length })
          const back = yield* sql<{ id: string }>`SELECT id FROM tracks WHERE library_id = 2 ORDER BY id`
          expect(back.map((row) => row.id)).toEqual([...hidden.tracks].sort())
          const detail = yield* admin.client.playlists.get({ path: { id: playlist.id } })
          expect(detail.tracks.map((entry) => entry.track.id)).toEqual([track])
          expect((yield* admin.client.likes.list()).tracks.map((t) => t.id)).toContain(track)
          // The same path twice is refused.
          const twice = yield* rawJson("POST", "/api/admin/libraries", { name: "Again", path: second }, admin.token)
          expect(twice.status).toBe(409)
        }),
    )

    it.effect(
      "scans per library: a copy in a third library is its own tracks and albums, streams from its folder, and each library reports its scan",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const third = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-third-"))
          fs.cpSync(second, third, { recursive: true })
          // A stream just before keeps the libraries' folders in memory: the new library must still be found.
          const [first] = yield* sql<{ id: string }>`SELECT id FROM tracks WHERE library_id = 1 LIMIT 1`
          expect((yield* raw("GET", `/api/tracks/${first!.id}/stream`, { token: admin.token })).status).toBe(200)
          const added = yield* rawJson("POST", "/api/admin/libraries", { name: "Copy", path: third }, admin.token)
          expect(added.status).toBe(201)
          const id = (added.json as { id: number }).id
          const scanned = yield* scanEnded(admin.token, id)
          expect(scanned).toMatchObject({ state: "idle", files_seen: 30 })
          const copies = yield* sql<{ id: string; album_id: string; path: string }>`
            SELECT id, album_id, path FROM tracks WHERE library_id = ${id} ORDER BY path`
          const originals = yield* sql<{
            id: string
            album_id: string
          }>`SELECT id, album_id FROM tracks WHERE library_id = 2`
          expect(copies.length).toBe(originals.length)
          // Same files, same tags: other tracks and other albums, never the second library's rows.
          const taken = new Set([...originals.map((row) => row.id), ...originals.map((row) => row.album_id)])
          expect(copies.filter((row) => taken.has(row.id) || taken.has(row.album_id))).toEqual([])
          const [albumsOfCopy] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM albums WHERE library_id = ${id}`
          const [albumsOfSecond] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM albums WHERE library_id = 2`
          expect(albumsOfCopy!.n).toBe(albumsOfSecond!.n)
          // The file is read from the third library's folder.
          const stream = yield* raw("GET", `/api/tracks/${copies[0]!.id}/stream`, { token: admin.token })
          expect(stream.status).toBe(200)
          expect(stream.headers.get("content-type")).toMatch(/^audio\//)

          const status = (yield* raw("GET", "/api/admin/scan", { token: admin.token })).json as {
            libraries: Array<LibraryScan>
          }
          expect(status.libraries.map((one) => [one.library_id, one.files_seen])).toEqual([
            [1, 60],
            [2, 30],
            [id, 30],
          ])
          const listed = (yield* raw("GET", "/api/admin/libraries", { token: admin.token })).json as {
            items: Array<{ id: number; track_count: number; scanned_at: string | null }>
          }
          expect(listed.items.find((item) => item.id === id)).toMatchObject({ track_count: 30 })
          expect(listed.items.every((item) => item.scanned_at !== null)).toBe(true)

          // Unmounted: the scan of that library fails and marks nothing missing (contract: data safety).
          const away = `${third}-away`
          fs.renameSync(third, away)
          const before = scanned.finished_at!
          const again = yield* rawJson("POST", `/api/admin/libraries/${id}/scan`, {}, admin.token)
          expect(again.status).toBe(202)
          const failed = yield* scanEnded(admin.token, id, before)
          expect(failed.state).toBe("failed")
          expect(failed.message).toContain(third)
          const [present] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tracks WHERE library_id = ${id}`
          expect(present!.n).toBe(30)
          fs.renameSync(away, third)
          // The other libraries' scans are untouched by it; all of them scan again on POST /api/admin/scan.
          const all = yield* rawJson("POST", "/api/admin/scan", {}, admin.token)
          expect(all.json).toEqual({ started: true })
          expect((yield* scanEnded(admin.token, id, failed.finished_at!)).state).toBe("idle")
          yield* scanEnded(admin.token, 1)
          yield* scanEnded(admin.token, 2)
          expect((yield* raw("DELETE", `/api/admin/libraries/${id}`, { token: admin.token })).status).toBe(204)
        }),
    )

    it.effect(
      "a scan running when its library is removed stops before a batch, and brings none of its tracks back",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const folder = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-removed-"))
          fs.cpSync(second, folder, { recursive: true })
          const added = yield* rawJson("POST", "/api/admin/libraries", { name: "Brief", path: folder }, admin.token)
          const id = (added.json as { id: number }).id
          yield* scanEnded(admin.token, id)
          expect((yield* raw("DELETE", `/api/admin/libraries/${id}`, { token: admin.token })).status).toBe(204)
          // A scan that had begun before the removal reaches its first batch now (full: every file is written).
          const scanner = yield* Scanner
          const stopped = yield* scanner.scan({ full: true, library: { id, root: folder } }).pipe(Effect.exit)
          expect(Exit.isFailure(stopped)).toBe(true)
          if (Exit.isFailure(stopped)) expect(Cause.pretty(stopped.cause)).toContain("was removed during its scan")
          const [present] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM indexed_tracks WHERE library_id = ${id} AND missing_since IS NULL`
          expect(present!.n).toBe(0)
        }),
    )

    it.effect("admin routes: rename, access of another user's id, unknown ids", () =>
      Effect.gen(function* () {
        const renamed = yield* rawJson("PATCH", "/api/admin/libraries/2", { name: "Stories" }, admin.token)
        expect(renamed.json).toMatchObject({ id: 2, name: "Stories" })
        expect((yield* rawJson("PATCH", "/api/admin/libraries/99", { name: "x" }, admin.token)).status).toBe(404)
        expect((yield* raw("DELETE", "/api/admin/libraries/99", { token: admin.token })).status).toBe(404)
        expect(
          (yield* rawJson("PUT", `/api/admin/users/${kid.user.id}/libraries`, { library_ids: [7] }, admin.token))
            .status,
        ).toBe(400)
        expect(
          (yield* rawJson("POST", "/api/admin/libraries", { name: "Rel", path: "relative/dir" }, admin.token)).status,
        ).toBe(400)
        // Listeners reach none of it.
        expect((yield* raw("GET", "/api/admin/libraries", { token: kid.token })).status).toBe(403)
        expect((yield* raw("GET", `/api/admin/users/${admin.user.id}/libraries`, { token: kid.token })).status).toBe(
          403,
        )
        expect(
          (yield* rawJson("PUT", `/api/admin/users/${kid.user.id}/libraries`, { library_ids: [1, 2] }, kid.token))
            .status,
        ).toBe(403)
        // Given both, the kid hears library 2 at once.
        const both = yield* rawJson(
          "PUT",
          `/api/admin/users/${kid.user.id}/libraries`,
          { library_ids: [1, 2] },
          admin.token,
        )
        expect(both.json).toEqual({ library_ids: [1, 2] })
        const kidAlbums = yield* raw("GET", "/api/library/albums?limit=500&library_id=2", { token: kid.token })
        expect((kidAlbums.json as { total: number }).total).toBe(hidden.albums.length)
        expect(
          (yield* raw("GET", "/api/admin/users/00000000-0000-4000-8000-000000000000/libraries", { token: admin.token }))
            .status,
        ).toBe(404)
      }),
    )
  },
)
