import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(60, 27)
/** The second library's folder (its rows are moved there by SQL: the scanner indexes the first folder only). */
const second = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-second-"))

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
        expect(added.json).toMatchObject({ id: 2, name: "Audiobooks", path: second, track_count: 0 })
        const sql = yield* SqlClient.SqlClient
        // Half the albums (by id) and their tracks go to library 2, as a scan of its folder would index them.
        yield* sql`
          WITH moved AS (SELECT id FROM albums ORDER BY id LIMIT (SELECT count(*) / 2 FROM albums))
          UPDATE indexed_albums SET library_id = 2 WHERE id IN (SELECT id FROM moved)`
        yield* sql`
          UPDATE indexed_tracks t SET library_id = 2 FROM indexed_albums a WHERE a.id = t.album_id AND a.library_id = 2`
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
        const document = (yield* raw("GET", "/openapi.json")).json as { paths: Record<string, Record<string, unknown>> }
        const checked: Array<string> = []
        const leaking: Array<string> = []
        for (const [template, methods] of Object.entries(document.paths)) {
          if (!("get" in methods) || template === "/api/events/stream") continue
          const hasParams = template.includes("{")
          const param = OPERATION_PARAMS[template]?.(hidden)
          if (hasParams && param === undefined) continue
          const url = hasParams ? template.replace(/\{[^}]+\}/, param!) : template
          const answer = yield* raw("GET", url, { token: kid.token })
          checked.push(template)
          if (answer.status >= 500) leaking.push(`${template}: ${answer.status}`)
          // Sync answers what the caller cannot hear as deletes (a client that had it drops it): only upserts carry data.
          const text =
            template === "/api/library/sync"
              ? JSON.stringify((answer.json as { upserts: unknown }).upserts)
              : answer.text
          const found = leaks(text, hidden)
          if (found.length > 0) leaking.push(`${template}: ${found.length} ids`)
        }
        expect(checked.length).toBeGreaterThan(40)
        expect(leaking).toEqual([])
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
