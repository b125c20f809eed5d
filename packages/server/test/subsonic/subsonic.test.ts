import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { createAndLogIn, PASSWORD, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"
import {
  type Auth,
  call,
  callJson,
  callXml,
  fails,
  ok,
  onceOk,
  query,
  withApiKey,
  withEncodedPassword,
  withPassword,
  withToken,
} from "./support.js"
import { parseXml } from "./xsdShape.js"

const { root } = await fixtureLibrary()

let alice: SignedIn
let bob: SignedIn
let aliceApp = ""
let bobApp = ""
let aliceKey = ""
let A: Auth
let B: () => Auth
interface TrackRow {
  id: string
  title: string
  album_id: string
  artist_id: string
  genre: string | null
  year: number
  format: string
  size_bytes: number
}
let tracks: Array<TrackRow> = []
let albums: Array<{ id: string; title: string; year: number; artist_id: string; covered: boolean }> = []

const songIds = (list: ReadonlyArray<{ id: string }> | undefined) => (list ?? []).map((song) => song.id)
// biome-ignore lint/suspicious/noExplicitAny: answers are schema-checked in support.ts; the assertions read them loosely
type Json = Record<string, any>

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })("subsonic", (it) => {
  it.scoped(
    "app password: POST /api/me/subsonic-password answers 201 {password}, shown once, a new one replaces it",
    () =>
      Effect.gen(function* () {
        alice = yield* signUpFirstAdmin("alice")
        bob = yield* createAndLogIn(alice.client, "bob")
        yield* scanNow()
        const sql = yield* SqlClient.SqlClient
        tracks = [
          ...(yield* sql<TrackRow>`
          SELECT t.id, t.title, t.album_id, t.artist_id, t.genre, a.year, t.file_format AS format, t.size_bytes::int AS size_bytes
          FROM tracks t JOIN albums a ON a.id = t.album_id ORDER BY t.path`),
        ]
        albums = [
          ...(yield* sql<{ id: string; title: string; year: number; artist_id: string; covered: boolean }>`
          SELECT id, title, year, artist_id, cover_art_source IS NOT NULL AS covered FROM albums ORDER BY title`),
        ]
        const first = yield* rawJson("POST", "/api/me/subsonic-password", {}, alice.token)
        expect(first.status).toBe(201)
        expect(Object.keys(first.json as object)).toEqual(["password"])
        const second = yield* rawJson("POST", "/api/me/subsonic-password", {}, alice.token)
        aliceApp = (second.json as { password: string }).password
        expect(aliceApp).not.toBe((first.json as { password: string }).password)
        // Stored encrypted: the database never holds the plain text.
        const stored = yield* sql<{ ciphertext: Uint8Array }>`SELECT ciphertext FROM subsonic_passwords`
        expect(stored).toHaveLength(1)
        expect(Buffer.from(stored[0]!.ciphertext).toString("utf8")).not.toContain(aliceApp)
        // The old app password no longer signs in; the new one does.
        yield* fails("ping", {}, withToken("alice", (first.json as { password: string }).password), 40)
        yield* ok("ping", {}, withToken("alice", aliceApp))
        A = withToken("alice", aliceApp)
        const unauthenticated = yield* rawJson("POST", "/api/me/subsonic-password", {})
        expect(unauthenticated.status).toBe(401)
      }),
  )

  it.scoped("API keys: created (shown once), listed without the key, revoked; another user's key is 404", () =>
    Effect.gen(function* () {
      const created = yield* rawJson("POST", "/api/me/api-keys", { name: "Symfonium" }, alice.token)
      expect(created.status).toBe(201)
      const key = created.json as { id: string; name: string; key: string; created_at: string }
      expect(Object.keys(key).sort()).toEqual(["created_at", "id", "key", "name"])
      aliceKey = key.key
      const list = yield* raw("GET", "/api/me/api-keys", { token: alice.token })
      expect(list.json).toEqual([{ id: key.id, name: "Symfonium", created_at: key.created_at, last_used_at: null }])
      yield* ok("ping", {}, withApiKey(aliceKey))
      const used = (yield* raw("GET", "/api/me/api-keys", { token: alice.token })).json as Array<{
        last_used_at: string
      }>
      expect(used[0]!.last_used_at).not.toBeNull()
      const empty = yield* rawJson("POST", "/api/me/api-keys", { name: "  " }, alice.token)
      expect(empty.status).toBe(400)
      // Bob cannot see or revoke it.
      expect((yield* raw("GET", "/api/me/api-keys", { token: bob.token })).json).toEqual([])
      expect((yield* raw("DELETE", `/api/me/api-keys/${key.id}`, { token: bob.token })).status).toBe(404)
      yield* ok("ping", {}, withApiKey(aliceKey))
      const spare = (yield* rawJson("POST", "/api/me/api-keys", { name: "spare" }, alice.token)).json as {
        id: string
        key: string
      }
      expect((yield* raw("DELETE", `/api/me/api-keys/${spare.id}`, { token: alice.token })).status).toBe(204)
      // A revoked key and an unknown key are error 44.
      yield* fails("ping", {}, withApiKey(spare.key), 44)
      yield* fails("ping", {}, withApiKey("not-a-key"), 44)
      const bobPassword = yield* rawJson("POST", "/api/me/subsonic-password", {}, bob.token)
      bobApp = (bobPassword.json as { password: string }).password
      B = () => withToken("bob", bobApp)
    }),
  )

  it.scoped("envelope: status, version 1.16.1, type tonearm, serverVersion, openSubsonic true, in XML and JSON", () =>
    Effect.gen(function* () {
      const body = yield* ok("ping", {}, A)
      expect(body).toMatchObject({ status: "ok", version: "1.16.1", type: "tonearm", openSubsonic: true })
      expect(body.serverVersion).toMatch(/^\d+\.\d+\.\d+/)
      const xml = yield* callXml("ping", {}, A)
      const rootElement = parseXml(xml.text).documentElement!
      expect(rootElement.getAttribute("type")).toBe("tonearm")
      expect(rootElement.getAttribute("openSubsonic")).toBe("true")
      expect(rootElement.getAttribute("version")).toBe("1.16.1")
      // /rest/<method> without .view answers the same.
      const bare = yield* callJson("ping", {}, A, { view: false })
      expect(bare.body.status).toBe("ok")
      // f=jsonp wraps the JSON in the callback.
      const jsonp = yield* raw("GET", `/rest/ping.view?${query({ ...A, f: "jsonp", callback: "cb" })}`)
      expect(jsonp.headers.get("content-type")).toContain("javascript")
      expect(jsonp.text).toMatch(/^cb\(\{"subsonic-response":\{"status":"ok"/)
      const evil = yield* raw("GET", `/rest/ping.view?${query({ ...A, f: "jsonp", callback: "alert(1)//" })}`)
      expect(evil.text).not.toContain("alert(1)")
    }),
  )

  it.scoped("auth: u+p plain and enc: hex, u+t+s, apiKey; form POST carries the same parameters (formPost)", () =>
    Effect.gen(function* () {
      yield* ok("ping", {}, withPassword("alice", PASSWORD))
      yield* ok("ping", {}, withEncodedPassword("alice", PASSWORD))
      yield* ok("ping", {}, withToken("alice", aliceApp))
      yield* ok("ping", {}, withApiKey(aliceKey))
      const posted = yield* callJson("getAlbumList2", { type: "alphabeticalByName", size: 3 }, A, { post: true })
      expect(posted.body.status).toBe("ok")
      expect((posted.body.albumList2 as Json).album).toHaveLength(3)
      // A form POST with the credentials only in the body.
      const form = yield* raw("POST", "/rest/ping.view", {
        body: query({ ...withApiKey(aliceKey), f: "json" }),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      })
      expect((form.json as Json)["subsonic-response"].status).toBe("ok")
    }),
  )

  it.scoped(
    "auth failures: 40 wrong credentials, 41 no app password for token auth (unknown names alike), 43 conflicting, 44 bad key, 10 missing, 20/30 protocol version",
    () =>
      Effect.gen(function* () {
        yield* fails("ping", {}, withPassword("alice", "wrong password"), 40)
        yield* fails("ping", {}, withPassword("nobody", "wrong password"), 40)
        yield* fails("ping", {}, withToken("alice", "not the app password"), 40)
        // The account password is not the app password: token auth with it fails.
        yield* fails("ping", {}, withToken("alice", PASSWORD), 40)
        // carol has no app password: token auth is not available to her (41).
        yield* alice.client.adminUsers.create({ payload: { username: "carol", password: PASSWORD } })
        const noAppPassword = yield* fails("ping", {}, withToken("carol", "anything"), 41)
        // An unknown name gets the very same answer: token auth never tells whether an account exists.
        const unknown = yield* fails("ping", {}, withToken("nobody-here", "anything"), 41)
        expect(unknown.error).toEqual(noAppPassword.error)
        yield* fails("ping", {}, { ...withApiKey(aliceKey), u: "alice" }, 43)
        yield* fails("ping", {}, { ...withPassword("alice", PASSWORD), t: "abc", s: "def" }, 43)
        yield* fails("ping", {}, withApiKey("unknown"), 44)
        yield* fails("ping", { v: "2.0.0" }, A, 30)
        yield* fails("ping", { v: "0.9.0" }, A, 20)
        yield* fails("ping", {}, {}, 10)
        yield* fails("ping", {}, { u: "alice" }, 10)
        yield* fails("ping", {}, { u: "alice", t: "abc" }, 10)
      }),
  )

  it.scoped(
    "getOpenSubsonicExtensions is public and lists formPost, apiKeyAuthentication, transcodeOffset and songLyrics",
    () =>
      Effect.gen(function* () {
        const body = yield* ok("getOpenSubsonicExtensions", {}, {})
        const names = (body.openSubsonicExtensions as Array<{ name: string; versions: Array<number> }>).map(
          (e) => e.name,
        )
        expect(names).toEqual(["formPost", "apiKeyAuthentication", "transcodeOffset", "songLyrics"])
        yield* ok("getLicense", {}, A)
      }),
  )

  it.scoped("unknown method: 404 with a failed envelope; a wrong method on /rest is 405", () =>
    Effect.gen(function* () {
      const unknown = yield* raw("GET", `/rest/getPodcastsX.view?${query({ ...A, f: "json" })}`)
      expect(unknown.status).toBe(404)
      expect((unknown.json as Json)["subsonic-response"].status).toBe("failed")
      const put = yield* raw("PUT", "/rest/ping.view")
      expect(put.status).toBe(405)
    }),
  )

  it.scoped("getMusicFolders, getIndexes, getArtists, getArtist, getAlbum, getSong, getMusicDirectory", () =>
    Effect.gen(function* () {
      const folders = yield* ok("getMusicFolders", {}, A)
      // One library, named after its folder (contract "Multiple libraries").
      expect((folders.musicFolders as Json).musicFolder).toEqual([{ id: 1, name: path.basename(root) }])
      const indexes = (yield* ok("getIndexes", {}, A)).indexes as Json
      const indexed = indexes.index.flatMap((index: Json) => index.artist.map((artist: Json) => artist.id))
      const artists = (yield* ok("getArtists", {}, A)).artists as Json
      const artistIds = artists.index.flatMap((index: Json) => index.artist.map((artist: Json) => artist.id))
      expect(new Set(indexed)).toEqual(new Set(artistIds))
      expect(artistIds).toEqual(expect.arrayContaining([...new Set(albums.map((album) => album.artist_id))]))
      const album = albums.find((candidate) => candidate.title === "Northern Static")!
      const artist = (yield* ok("getArtist", { id: album.artist_id }, A)).artist as Json
      expect(artist.album.map((entry: Json) => entry.id)).toContain(album.id)
      const full = (yield* ok("getAlbum", { id: album.id }, A)).album as Json
      const expected = tracks.filter((track) => track.album_id === album.id)
      expect(full.songCount).toBe(expected.length)
      expect(full.year).toBe(2019)
      expect(full.genres.map((genre: Json) => genre.name).sort()).toEqual(["Pop", "Rock", "Rock/Pop"])
      expect(new Set(songIds(full.song))).toEqual(new Set(expected.map((track) => track.id)))
      const song = (yield* ok("getSong", { id: expected[0]!.id }, A)).song as Json
      expect(song).toMatchObject({ id: expected[0]!.id, albumId: album.id, isDir: false, type: "music" })
      const directory = (yield* ok("getMusicDirectory", { id: album.artist_id }, A)).directory as Json
      expect(directory.child.map((entry: Json) => entry.id)).toContain(album.id)
      expect(directory.child.every((entry: Json) => entry.isDir === true)).toBe(true)
      const albumDirectory = (yield* ok("getMusicDirectory", { id: album.id }, A)).directory as Json
      expect(albumDirectory.parent).toBe(album.artist_id)
      expect(albumDirectory.child).toHaveLength(expected.length)
      // Unknown and malformed ids are 70; a missing id is 10.
      yield* fails("getAlbum", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      yield* fails("getAlbum", { id: "nope" }, A, 70)
      yield* fails("getSong", { id: album.id }, A, 70)
      yield* fails("getArtist", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      yield* fails("getMusicDirectory", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      yield* fails("getAlbum", {}, A, 10)
      yield* fails("getSong", {}, A, 10)
      yield* fails("getArtist", {}, A, 10)
      yield* fails("getMusicDirectory", {}, A, 10)
    }),
  )

  it.scoped(
    "genre rule: getGenres is split and trimmed with song and album counts; byGenre, getSongsByGenre and getRandomSongs use it",
    () =>
      Effect.gen(function* () {
        const genres = ((yield* ok("getGenres", {}, A)).genres as Json).genre as Array<Json>
        const split = (raw: string | null) => [
          ...new Set(
            (raw ?? "")
              .split(/[;,]/)
              .map((g) => g.trim())
              .filter((g) => g !== ""),
          ),
        ]
        const expected = new Map<string, { songs: number; albums: Set<string> }>()
        for (const track of tracks) {
          for (const genre of split(track.genre)) {
            const entry = expected.get(genre) ?? { songs: 0, albums: new Set<string>() }
            entry.songs += 1
            entry.albums.add(track.album_id)
            expected.set(genre, entry)
          }
        }
        expect(genres.map((genre) => genre.value).sort()).toEqual([...expected.keys()].sort())
        for (const genre of genres) {
          expect(genre.songCount).toBe(expected.get(genre.value)!.songs)
          expect(genre.albumCount).toBe(expected.get(genre.value)!.albums.size)
        }
        // Rock and rock are separate; Rock/Pop is one genre; Rock;Pop reaches Rock and Pop.
        expect(genres.map((genre) => genre.value)).toEqual(expect.arrayContaining(["Rock", "rock", "Rock/Pop", "Pop"]))
        for (const genre of ["Rock", "rock", "Rock/Pop", "Pop", "Jazz", "Blues"]) {
          if (!expected.has(genre)) continue
          const byGenre = ((yield* ok("getAlbumList2", { type: "byGenre", genre, size: 500 }, A)).albumList2 as Json)
            .album
          expect(new Set(byGenre.map((album: Json) => album.id))).toEqual(expected.get(genre)!.albums)
          const songs = ((yield* ok("getSongsByGenre", { genre, count: 500 }, A)).songsByGenre as Json).song
          expect(songs).toHaveLength(expected.get(genre)!.songs)
          const random = ((yield* ok("getRandomSongs", { genre, size: 500 }, A)).randomSongs as Json).song
          expect(random.length).toBe(expected.get(genre)!.songs)
        }
        yield* fails("getSongsByGenre", {}, A, 10)
        yield* fails("getAlbumList2", { type: "byGenre" }, A, 10)
      }),
  )

  it.scoped(
    "getAlbumList/getAlbumList2: every type; byYear from>to lists newest first; undated albums match no range",
    () =>
      Effect.gen(function* () {
        for (const type of [
          "random",
          "newest",
          "highest",
          "frequent",
          "recent",
          "alphabeticalByName",
          "alphabeticalByArtist",
          "starred",
        ]) {
          const list2 = ((yield* ok("getAlbumList2", { type, size: 500 }, A)).albumList2 as Json).album
          const list = ((yield* ok("getAlbumList", { type, size: 500 }, A)).albumList as Json).album
          expect(list.length).toBe(list2.length)
          if (["random", "newest", "alphabeticalByName", "alphabeticalByArtist"].includes(type)) {
            expect(list2).toHaveLength(albums.length)
          }
        }
        const byName = (
          (yield* ok("getAlbumList2", { type: "alphabeticalByName", size: 2, offset: 1 }, A)).albumList2 as Json
        ).album
        expect(byName).toHaveLength(2)
        const dated = albums.filter((album) => album.year > 0)
        const low = Math.min(...dated.map((album) => album.year))
        const high = Math.max(...dated.map((album) => album.year))
        const forward = (
          (yield* ok("getAlbumList2", { type: "byYear", fromYear: 0, toYear: 3000, size: 500 }, A)).albumList2 as Json
        ).album as Array<Json>
        expect(forward.map((album) => album.id).sort()).toEqual(dated.map((album) => album.id).sort())
        expect(forward.map((album) => album.year)).toEqual(
          [...forward.map((album) => album.year)].sort((a, b) => a - b),
        )
        const reversed = (
          (yield* ok("getAlbumList2", { type: "byYear", fromYear: high, toYear: low, size: 500 }, A)).albumList2 as Json
        ).album as Array<Json>
        expect(reversed.map((album) => album.year)).toEqual(
          [...reversed.map((album) => album.year)].sort((a, b) => b - a),
        )
        expect(reversed).toHaveLength(dated.length)
        // Undated albums (year 0) are in no range, not even one that includes 0.
        const undated = albums.filter((album) => album.year === 0)
        expect(undated.length).toBeGreaterThan(0)
        expect(forward.map((album) => album.id)).not.toContain(undated[0]!.id)
        yield* fails("getAlbumList2", { type: "byYear", fromYear: 2000 }, A, 10)
        yield* fails("getAlbumList2", {}, A, 10)
        yield* fails("getAlbumList2", { type: "nonsense" }, A, 0)
        const years = (
          (yield* ok("getRandomSongs", { fromYear: 2019, toYear: 2019, size: 500 }, A)).randomSongs as Json
        ).song
        expect(new Set(years.map((song: Json) => song.year))).toEqual(new Set([2019]))
      }),
  )

  it.scoped("search2/search3: prefix match on names and titles; an empty query pages through everything", () =>
    Effect.gen(function* () {
      const three = (yield* ok("search3", { query: "northern" }, A)).searchResult3 as Json
      expect(three.album.map((album: Json) => album.name)).toContain("Northern Static")
      const two = (yield* ok("search2", { query: "static" }, A)).searchResult2 as Json
      expect(two.song.map((song: Json) => song.title)).toContain("Static Bloom")
      expect(two.album.every((album: Json) => album.isDir === true)).toBe(true)
      const everything = (yield* ok("search3", { query: "", songCount: 500, albumCount: 500, artistCount: 500 }, A))
        .searchResult3 as Json
      expect(everything.song).toHaveLength(tracks.length)
      expect(everything.album).toHaveLength(albums.length)
      const paged = (yield* ok(
        "search3",
        { query: '""', songCount: 2, songOffset: 2, albumCount: 0, artistCount: 0 },
        A,
      )).searchResult3 as Json
      expect(songIds(paged.song)).toEqual(songIds(everything.song).slice(2, 4))
      yield* fails("search3", {}, A, 10)
    }),
  )

  it.scoped("star/unstar: the likes (same events as the JSON API); getStarred and getStarred2 list them", () =>
    Effect.gen(function* () {
      const events = yield* openSse(yield* serverUrl, alice.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      const track = tracks[0]!
      const album = albums[0]!
      yield* onceOk("star", { id: track.id, albumId: album.id, artistId: album.artist_id }, A, "xml")
      yield* events.waitFor((frame) => frame.event === "track.liked")
      yield* events.waitFor((frame) => frame.event === "album.liked")
      yield* events.waitFor((frame) => frame.event === "artist.liked")
      const likes = (yield* raw("GET", "/api/likes", { token: alice.token })).json as Json
      expect(likes.tracks.map((t: Json) => t.id)).toEqual([track.id])
      const starred2 = (yield* ok("getStarred2", {}, A)).starred2 as Json
      expect(songIds(starred2.song)).toEqual([track.id])
      expect(starred2.song[0].starred).toBeDefined()
      expect(starred2.album.map((a: Json) => a.id)).toEqual([album.id])
      expect(starred2.artist.map((a: Json) => a.id)).toEqual([album.artist_id])
      const starred = (yield* ok("getStarred", {}, A)).starred as Json
      expect(songIds(starred.song)).toEqual([track.id])
      // Stars ride on every listing of the starred things (one likes query per answer), and only the caller's.
      const starsOn = (items: ReadonlyArray<Json> | undefined) =>
        (items ?? []).filter((item) => item.starred !== undefined).map((item) => item.id)
      const trackAlbum = (yield* ok("getAlbum", { id: track.album_id }, A)).album as Json
      expect(starsOn(trackAlbum.song)).toEqual([track.id])
      expect(trackAlbum.starred !== undefined).toBe(track.album_id === album.id)
      const starredAlbum = (yield* ok("getAlbum", { id: album.id }, A)).album as Json
      expect(starredAlbum.starred).toBeDefined()
      const albumDirectory = (yield* ok("getMusicDirectory", { id: track.album_id }, A)).directory as Json
      expect(starsOn(albumDirectory.child)).toEqual([track.id])
      const artistDirectory = (yield* ok("getMusicDirectory", { id: album.artist_id }, A)).directory as Json
      expect(artistDirectory.starred).toBeDefined()
      expect(starsOn(artistDirectory.child)).toContain(album.id)
      const found = (yield* ok("search3", { query: track.title }, A)).searchResult3 as Json
      expect(starsOn(found.song)).toEqual([track.id])
      const foundByBob = (yield* ok("search3", { query: track.title }, B())).searchResult3 as Json
      expect(starsOn(foundByBob.song)).toEqual([])
      expect(((yield* ok("getAlbum", { id: album.id }, B())).album as Json).starred).toBeUndefined()
      // starred albums are the "starred" (and "highest") album lists.
      const listed = ((yield* ok("getAlbumList2", { type: "starred" }, A)).albumList2 as Json).album
      expect(listed.map((a: Json) => a.id)).toEqual([album.id])
      // An album id passed as `id` (older apps) likes the album.
      yield* onceOk("unstar", { id: album.id }, A)
      yield* events.waitFor((frame) => frame.event === "album.unliked")
      yield* onceOk("unstar", { id: track.id, artistId: album.artist_id }, A, "xml")
      yield* events.waitFor((frame) => frame.event === "track.unliked")
      const after = (yield* ok("getStarred2", {}, A)).starred2 as Json
      expect(after.song ?? []).toEqual([])
      // Bob's likes are his own.
      expect(((yield* ok("getStarred2", {}, B())).starred2 as Json).song ?? []).toEqual([])
      yield* fails("star", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      yield* fails("star", {}, A, 10)
    }),
  )

  it.scoped(
    "playlists: create, get, update, delete; system playlists read-only (50); another user's playlist is 70, never their data",
    () =>
      Effect.gen(function* () {
        const created = (yield* onceOk(
          "createPlaylist",
          { name: "Road trip", songId: [tracks[0]!.id, tracks[1]!.id] },
          A,
        )).playlist as Json
        expect(created).toMatchObject({ name: "Road trip", songCount: 2, owner: "alice", readonly: false })
        expect(songIds(created.entry)).toEqual([tracks[0]!.id, tracks[1]!.id])
        const id = created.id as string
        yield* onceOk(
          "updatePlaylist",
          { playlistId: id, name: "Road trip 2", comment: "car", songIdToAdd: tracks[2]!.id, songIndexToRemove: 0 },
          A,
          "xml",
        )
        const updated = (yield* ok("getPlaylist", { id }, A)).playlist as Json
        expect(updated).toMatchObject({ name: "Road trip 2", comment: "car", songCount: 2 })
        expect(songIds(updated.entry)).toEqual([tracks[1]!.id, tracks[2]!.id])
        // createPlaylist with playlistId replaces the songs.
        const replaced = (yield* onceOk("createPlaylist", { playlistId: id, songId: [tracks[3]!.id] }, A))
          .playlist as Json
        const inXml = yield* onceOk("createPlaylist", { name: "In XML" }, A, "xml")
        expect(inXml.xml).toContain('name="In XML"')
        expect(songIds(replaced.entry)).toEqual([tracks[3]!.id])
        const listed = ((yield* ok("getPlaylists", {}, A)).playlists as Json).playlist as Array<Json>
        expect(listed.map((p) => p.id)).toContain(id)
        // The same playlist through the JSON API.
        const viaJson = (yield* raw("GET", `/api/playlists/${id}`, { token: alice.token })).json as Json
        expect(viaJson.name).toBe("Road trip 2")
        // Bob: another user's playlist is 70 for every method, and nothing of it shows.
        const bobGet = yield* call("getPlaylist", { id }, B())
        expect(bobGet.error?.code).toBe(70)
        expect(JSON.stringify(bobGet)).not.toContain("Road trip")
        yield* fails("updatePlaylist", { playlistId: id, name: "mine now" }, B(), 70)
        yield* fails("deletePlaylist", { id }, B(), 70)
        yield* fails("createPlaylist", { playlistId: id, songId: tracks[0]!.id }, B(), 70)
        expect(
          (((yield* ok("getPlaylists", {}, B())).playlists as Json).playlist ?? []).map((p: Json) => p.id),
        ).not.toContain(id)
        yield* fails("getPlaylists", { username: "alice" }, B(), 50)
        // A system playlist is listed read-only and can't be edited (50).
        const sql = yield* SqlClient.SqlClient
        const [system] = yield* sql<{ id: string }>`
        INSERT INTO playlists (owner_id, name, system_variant, created_at, updated_at)
        VALUES (${alice.user.id}, 'For You', 'for_you', now(), now()) RETURNING id`
        yield* sql`INSERT INTO playlist_tracks (playlist_id, track_id, position, pick_kind) VALUES (${system!.id}, ${tracks[0]!.id}, 0, NULL)`.pipe(
          Effect.catchAll(() => Effect.void),
        )
        const withSystem = ((yield* ok("getPlaylists", {}, A)).playlists as Json).playlist as Array<Json>
        expect(withSystem.find((p) => p.id === system!.id)?.readonly).toBe(true)
        yield* fails("updatePlaylist", { playlistId: system!.id, name: "mine" }, A, 50)
        yield* fails("deletePlaylist", { id: system!.id }, A, 50)
        yield* fails("createPlaylist", { playlistId: system!.id, songId: tracks[1]!.id }, A, 50)
        yield* onceOk("deletePlaylist", { id }, A, "xml")
        yield* fails("getPlaylist", { id }, A, 70)
        yield* fails("createPlaylist", {}, A, 10)
        yield* fails("getPlaylist", {}, A, 10)
        yield* fails("updatePlaylist", {}, A, 10)
        yield* fails("deletePlaylist", {}, A, 10)
      }),
  )

  it.scoped("stream and download: the original bytes with Range; a missing id is 10, an unknown one 70", () =>
    Effect.gen(function* () {
      const track = tracks.find((candidate) => candidate.format === "mp3") ?? tracks[0]!
      const whole = yield* raw("GET", `/rest/stream.view?${query({ ...A, id: track.id })}`)
      expect(whole.status).toBe(200)
      expect(whole.bytes.length).toBe(track.size_bytes)
      const part = yield* raw("GET", `/rest/stream.view?${query({ ...A, id: track.id })}`, {
        headers: { range: "bytes=10-19" },
      })
      expect(part.status).toBe(206)
      expect(part.headers.get("content-range")).toBe(`bytes 10-19/${track.size_bytes}`)
      expect(part.bytes.equals(whole.bytes.subarray(10, 20))).toBe(true)
      const download = yield* raw(
        "GET",
        `/rest/download.view?${query({ ...A, id: track.id, format: "mp3", maxBitRate: 64 })}`,
      )
      expect(download.status).toBe(200)
      expect(download.headers.get("content-disposition")).toContain("attachment")
      expect(download.bytes.equals(whole.bytes)).toBe(true)
      const raw0 = yield* raw("GET", `/rest/stream.view?${query({ ...A, id: track.id, format: "raw" })}`)
      expect(raw0.bytes.equals(whole.bytes)).toBe(true)
      // format and maxBitRate reach the transcoder: a flac at 64 kbit/s mp3, and from a time offset.
      const flac = tracks.find((candidate) => candidate.format === "flac")
      if (flac !== undefined) {
        const mp3 = yield* raw(
          "GET",
          `/rest/stream.view?${query({ ...A, id: flac.id, format: "mp3", maxBitRate: 64 })}`,
        )
        expect(mp3.status).toBe(200)
        expect(mp3.headers.get("content-type")).toBe("audio/mpeg")
        expect(mp3.bytes.length).toBeGreaterThan(0)
        const later = yield* raw(
          "GET",
          `/rest/stream.view?${query({ ...A, id: flac.id, maxBitRate: 64, timeOffset: 1 })}`,
        )
        expect(later.headers.get("content-type")).toBe("audio/mpeg")
        expect(later.bytes.length).toBeLessThan(mp3.bytes.length)
      }
      yield* fails("stream", {}, A, 10)
      yield* fails("stream", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      yield* fails("download", { id: "bad" }, A, 70)
      yield* fails("stream", { id: track.id }, withPassword("alice", "wrong password"), 40)
    }),
  )

  it.scoped("getCoverArt: album, song and artist ids with size; a playlist's collage; no cover is 70", () =>
    Effect.gen(function* () {
      const album = albums.find((candidate) => candidate.covered)!
      const cover = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...A, id: `al-${album.id}`, size: 64 })}`)
      expect(cover.status).toBe(200)
      expect(cover.headers.get("content-type")).toMatch(/^image\//)
      const meta = yield* Effect.promise(() => sharp(cover.bytes).metadata())
      expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBeLessThanOrEqual(64)
      const song = tracks.find((track) => track.album_id === album.id)!
      const bySong = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...A, id: song.id })}`)
      expect(bySong.status).toBe(200)
      const byArtist = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...A, id: `ar-${album.artist_id}` })}`)
      expect(byArtist.status).toBe(200)
      const bare = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...A, id: album.id, size: 32 })}`)
      expect(bare.status).toBe(200)
      const playlist = (yield* onceOk("createPlaylist", { name: "Covers", songId: song.id }, A)).playlist as Json
      const collage = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...A, id: playlist.coverArt })}`)
      expect(collage.status).toBe(200)
      // Bob can't read alice's playlist collage.
      yield* fails("getCoverArt", { id: playlist.coverArt }, B(), 70)
      const uncovered = albums.find((candidate) => !candidate.covered)
      if (uncovered !== undefined) yield* fails("getCoverArt", { id: `al-${uncovered.id}` }, A, 70)
      yield* fails("getCoverArt", {}, A, 10)
      yield* onceOk("deletePlaylist", { id: playlist.id }, A)
    }),
  )

  it.scoped(
    "scrobble: submission=false is play_started, true a completed play, with the device class from the client name",
    () =>
      Effect.gen(function* () {
        const track = tracks[0]!
        yield* onceOk("scrobble", { id: track.id, submission: false, c: "DSub" }, A, "xml")
        const nowPlaying = ((yield* ok("getNowPlaying", {}, B())).nowPlaying as Json).entry as Array<Json>
        expect(nowPlaying.map((entry) => [entry.id, entry.username])).toContainEqual([track.id, "alice"])
        let plays = ((yield* raw("GET", "/api/me/plays", { token: alice.token })).json as Json).items as Array<Json>
        expect(plays[0]).toMatchObject({
          track_id: track.id,
          duration_played_ms: null,
          device_class: "mobile",
          client_id: "DSub",
        })
        // submission=true completes that open play.
        yield* onceOk("scrobble", { id: track.id, submission: true, c: "DSub" }, A)
        plays = ((yield* raw("GET", "/api/me/plays", { token: alice.token })).json as Json).items as Array<Json>
        expect(plays).toHaveLength(1)
        expect(plays[0]!.duration_played_ms).toBeGreaterThan(0)
        expect(plays[0]!.skipped).toBe(false)
        // With no open play it records a complete play at `time`.
        const at = Date.now() - 1000
        yield* onceOk("scrobble", { id: tracks[1]!.id, time: at, c: "Feishin" }, A)
        plays = ((yield* raw("GET", "/api/me/plays", { token: alice.token })).json as Json).items as Array<Json>
        const past = plays.find((play) => play.track_id === tracks[1]!.id)!
        expect(past).toMatchObject({ device_class: "desktop", skipped: false, source: null })
        expect(Math.abs(Date.parse(past.started_at) - at)).toBeLessThan(2000)
        yield* fails("scrobble", {}, A, 10)
        yield* fails("scrobble", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      }),
  )

  it.scoped(
    "getSimilarSongs, getSimilarSongs2, getTopSongs, getArtistInfo(2), getAlbumInfo(2) from the recommendation domain",
    () =>
      Effect.gen(function* () {
        const track = tracks[0]!
        const similar = ((yield* ok("getSimilarSongs", { id: track.id, count: 5 }, A)).similarSongs as Json).song ?? []
        expect(similar.length).toBeLessThanOrEqual(5)
        expect(songIds(similar)).not.toContain(track.id)
        yield* ok("getSimilarSongs", { id: track.album_id }, A)
        yield* ok("getSimilarSongs2", { id: track.artist_id, count: 5 }, A)
        yield* fails("getSimilarSongs2", { id: track.id }, A, 70)
        yield* fails("getSimilarSongs", {}, A, 10)
        const artistName = ((yield* ok("getArtist", { id: track.artist_id }, A)).artist as Json).name as string
        // The caller's most played songs of that artist: alice played tracks[0] above.
        const top = ((yield* ok("getTopSongs", { artist: artistName }, A)).topSongs as Json).song ?? []
        expect(songIds(top)).toContain(track.id)
        expect(((yield* ok("getTopSongs", { artist: "Nobody At All" }, A)).topSongs as Json).song ?? []).toEqual([])
        yield* fails("getTopSongs", {}, A, 10)
        yield* ok("getArtistInfo", { id: track.artist_id }, A)
        yield* ok("getArtistInfo2", { id: track.artist_id }, A)
        yield* fails("getArtistInfo2", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
        yield* ok("getAlbumInfo", { id: track.album_id }, A)
        yield* ok("getAlbumInfo2", { id: track.album_id }, A)
        yield* fails("getAlbumInfo2", {}, A, 10)
      }),
  )

  it.scoped("getPlayQueue/savePlayQueue: saved per user, resumed with current and position", () =>
    Effect.gen(function* () {
      expect((yield* ok("getPlayQueue", {}, A)).playQueue).toBeUndefined()
      yield* onceOk(
        "savePlayQueue",
        { id: [tracks[0]!.id, tracks[1]!.id], current: tracks[1]!.id, position: 4200, c: "Symfonium" },
        A,
        "xml",
      )
      const queue = (yield* ok("getPlayQueue", {}, A)).playQueue as Json
      expect(queue).toMatchObject({ current: tracks[1]!.id, position: 4200, username: "alice", changedBy: "Symfonium" })
      expect(songIds(queue.entry)).toEqual([tracks[0]!.id, tracks[1]!.id])
      expect((yield* ok("getPlayQueue", {}, B())).playQueue).toBeUndefined()
      yield* fails("savePlayQueue", { id: "00000000-0000-4000-8000-000000000000" }, A, 70)
      yield* onceOk("savePlayQueue", {}, A)
      expect((yield* ok("getPlayQueue", {}, A)).playQueue).toBeUndefined()
    }),
  )

  it.scoped("getUser: one's own record, an admin anyone's; a non-admin asking for another user is 50", () =>
    Effect.gen(function* () {
      const me = (yield* ok("getUser", { username: "bob" }, B())).user as Json
      expect(me).toMatchObject({ username: "bob", adminRole: false, streamRole: true, folder: [1] })
      const asAdmin = (yield* ok("getUser", { username: "bob" }, A)).user as Json
      expect(asAdmin.username).toBe("bob")
      expect(((yield* ok("getUser", { username: "alice" }, A)).user as Json).adminRole).toBe(true)
      yield* fails("getUser", { username: "alice" }, B(), 50)
      yield* fails("getUser", { username: "nobody" }, A, 70)
      yield* fails("getUser", {}, A, 10)
    }),
  )

  it.scoped("getScanStatus; startScan is admin only (50 otherwise)", () =>
    Effect.gen(function* () {
      const status = (yield* ok("getScanStatus", {}, B())).scanStatus as Json
      expect(status.scanning).toBe(false)
      yield* fails("startScan", {}, B(), 50)
      const started = (yield* onceOk("startScan", {}, A)).scanStatus as Json
      expect(typeof started.scanning).toBe("boolean")
      yield* onceOk("startScan", {}, A, "xml")
    }),
  )

  it.scoped("failed sign-ins are rate-limited like logins: 429 with Retry-After after 10 failures", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 10; i++)
        expect((yield* callJson("ping", {}, withToken("bob", "wrong"))).body.error?.code).toBe(40)
      const blocked = yield* callJson("ping", {}, withToken("bob", "wrong"))
      expect(blocked.http.status).toBe(429)
      expect(blocked.http.headers.get("retry-after")).toMatch(/^\d+$/)
      expect(blocked.body.error?.code).toBe(40)
      // The account password is guessable: like a login, even the right one waits out the block.
      const password = yield* callJson("ping", {}, withPassword("bob", PASSWORD))
      expect(password.http.status).toBe(429)
      // Keys are counted per address: ten unknown keys from one address block that address.
      const address = { "x-forwarded-for": "192.0.2.7" }
      for (let i = 0; i < 10; i++) {
        const response = yield* raw("GET", `/rest/ping.view?${query({ apiKey: `guess-${i}`, f: "json" })}`, {
          headers: address,
        })
        expect((response.json as Json)["subsonic-response"].error.code).toBe(44)
      }
      const guessed = yield* raw("GET", `/rest/ping.view?${query({ apiKey: "guess-10", f: "json" })}`, {
        headers: address,
      })
      expect(guessed.status).toBe(429)
    }),
  )
})
