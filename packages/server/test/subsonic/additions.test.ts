import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import SubsonicAPI from "subsonic-api"
import { PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { type RawResponse, raw, rawJson } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"
import {
  type Auth,
  callJson,
  callXml,
  fails,
  freshAddress,
  ok,
  onceOk,
  query,
  withApiKey,
  withPassword,
  withToken,
} from "./support.js"
import { parseXml } from "./xsdShape.js"

/**
 * The Subsonic additions of the contract ("Subsonic compatibility: additions") that do not depend on the library
 * model: CORS on /rest, empty parameters counting as absent, tokenInfo, and ifModifiedSince on getIndexes and
 * getArtists. The browser's side of CORS is in packages/web/test/e2e/subsonicCors.test.ts.
 */
const { root } = await fixtureLibrary()

let appPassword = ""
let apiKey = ""
let A: Auth
let trackId = ""
let albumId = ""
let tracksCount = 0
let arranged = false

/**
 * What the tests share, made by whichever test runs first (so that each also passes alone, with -t): alice (the
 * first account) with an app password and an API key, the library scanned, and its first track.
 */
const arrange = Effect.gen(function* () {
  if (arranged) return
  const alice = yield* signUpFirstAdmin("alice")
  yield* scanNow()
  appPassword = ((yield* rawJson("POST", "/api/me/subsonic-password", {}, alice.token)).json as Json).password
  apiKey = ((yield* rawJson("POST", "/api/me/api-keys", { name: "additions" }, alice.token)).json as Json).key
  A = withToken("alice", appPassword)
  const sql = yield* SqlClient.SqlClient
  const tracks = yield* sql<{ id: string; album_id: string }>`SELECT id, album_id FROM tracks ORDER BY path`
  trackId = tracks[0]!.id
  albumId = tracks[0]!.album_id
  tracksCount = tracks.length
  arranged = true
})

// biome-ignore lint/suspicious/noExplicitAny: answers are schema-checked in support.ts; the assertions read them loosely
type Json = Record<string, any>

const expectCors = (response: RawResponse, what: string) => {
  expect(response.headers.get("access-control-allow-origin"), what).toBe("*")
  expect(response.headers.get("access-control-allow-credentials"), what).toBeNull()
}

/** A raw GET of /rest/<method>.view with these parameters (credentials included), from a fresh address. */
const rest = (method: string, params: Record<string, string | number>, init: { method?: string } = {}) =>
  raw(init.method ?? "GET", `/rest/${method}.view?${query({ c: "vitest", v: "1.16.1", ...params })}`, {
    headers: { origin: "http://elsewhere.test", ...freshAddress() },
  })

const indexesOf = (body: Json, key: "indexes" | "artists") => body[key] as { lastModified: number; index: Array<Json> }

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "subsonic additions",
  (it) => {
    it.scoped(
      "tokenInfo answers the API key's user name, in JSON and XML; the extension list has apiKeyAuthentication",
      () =>
        Effect.gen(function* () {
          yield* arrange
          const body = yield* ok("tokenInfo", {}, withApiKey(apiKey))
          expect(body.tokenInfo).toEqual({ username: "alice" })
          const xml = yield* callXml("tokenInfo", {}, withApiKey(apiKey))
          const element = parseXml(xml.text).getElementsByTagName("tokenInfo")[0]
          expect(element?.getAttribute("username")).toBe("alice")
          // An unknown key is 44, no credentials 10.
          yield* fails("tokenInfo", {}, withApiKey("not-a-key"), 44)
          yield* fails("tokenInfo", {}, {}, 10)

          const extensions = yield* ok("getOpenSubsonicExtensions", {}, {})
          expect((extensions.openSubsonicExtensions as Array<Json>).map((e) => e.name)).toContain(
            "apiKeyAuthentication",
          )
        }),
    )

    it.scoped("tokenInfo and ping through the subsonic-api client with an API key", () =>
      Effect.gen(function* () {
        yield* arrange
        const url = yield* serverUrl
        const client = new SubsonicAPI({ url, auth: { apiKey } })
        const ping = yield* Effect.promise(() => client.ping())
        expect(ping.status).toBe("ok")
        const info = yield* Effect.promise(() =>
          client.customJSON<{ status: string; tokenInfo: { username: string } }>("tokenInfo", {}),
        )
        expect(info).toMatchObject({ status: "ok", tokenInfo: { username: "alice" } })
        const unknown = yield* Effect.promise(() =>
          new SubsonicAPI({ url, auth: { apiKey: "nope" } }).customJSON<Json>("tokenInfo", {}),
        )
        expect(unknown.error.code).toBe(44)
      }),
    )

    it.scoped("CORS: every /rest answer carries Access-Control-Allow-Origin *", () =>
      Effect.gen(function* () {
        yield* arrange
        const answers: Array<[string, RawResponse]> = [
          ["ping json", yield* rest("ping", { ...A, f: "json" })],
          ["ping xml", yield* rest("ping", A)],
          ["ping jsonp", yield* rest("ping", { ...A, f: "jsonp", callback: "cb" })],
          ["wrong password (40)", yield* rest("ping", { ...withPassword("alice", "wrong"), f: "json" })],
          ["no credentials (10), xml", yield* rest("ping", {})],
          ["extensions, no credentials", yield* rest("getOpenSubsonicExtensions", { f: "json" })],
          ["getAlbum", yield* rest("getAlbum", { ...A, id: albumId, f: "json" })],
          ["getAlbum unknown (70)", yield* rest("getAlbum", { ...A, id: "nope" })],
          ["unknown method (404)", yield* rest("getPodcastsX", { ...A, f: "json" })],
          ["PUT (405)", yield* rest("ping", A, { method: "PUT" })],
          ["stream (audio)", yield* rest("stream", { ...A, id: trackId })],
          ["stream HEAD", yield* rest("stream", { ...A, id: trackId }, { method: "HEAD" })],
          ["stream unknown (70)", yield* rest("stream", { ...A, id: "nope" })],
          ["download", yield* rest("download", { ...A, id: trackId })],
          ["getCoverArt", yield* rest("getCoverArt", { ...A, id: `al-${albumId}`, size: 64 })],
          ["getCoverArt unknown (70)", yield* rest("getCoverArt", { ...A, id: "al-nope" })],
          [
            "form POST",
            yield* raw("POST", "/rest/ping.view", {
              body: query({ ...A, f: "json" }),
              headers: { "content-type": "application/x-www-form-urlencoded", ...freshAddress() },
            }),
          ],
          ["no method (404)", yield* raw("GET", "/rest/")],
          ["nested path (404)", yield* raw("GET", "/rest/ping.view/extra")],
        ]
        for (const [what, answer] of answers) expectCors(answer, `${what} (${answer.status})`)
        const statuses = Object.fromEntries(answers.map(([what, answer]) => [what, answer.status]))
        expect(statuses).toMatchObject({ "stream (audio)": 200, "unknown method (404)": 404, "PUT (405)": 405 })
        expect(answers.find(([what]) => what === "stream (audio)")![1].bytes.length).toBeGreaterThan(0)
        const wrong = answers.find(([what]) => what === "wrong password (40)")![1]
        expect((wrong.json as Json)["subsonic-response"].error.code).toBe(40)
        // A page may read the headers it needs from audio and throttled answers.
        const exposed = answers[0]![1].headers.get("access-control-expose-headers") ?? ""
        for (const name of ["Content-Range", "Accept-Ranges", "Content-Disposition", "Retry-After"]) {
          expect(exposed).toContain(name)
        }
        // Only /rest: the JSON API keeps its same-origin answers.
        expect((yield* raw("GET", "/healthz")).headers.get("access-control-allow-origin")).toBeNull()
      }),
    )

    it.scoped("CORS: OPTIONS /rest/* answers 204 with GET, POST, OPTIONS, the requested headers and a max age", () =>
      Effect.gen(function* () {
        const asked = yield* raw("OPTIONS", "/rest/ping.view", {
          headers: {
            origin: "http://elsewhere.test",
            "access-control-request-method": "GET",
            "access-control-request-headers": "content-type, x-requested-with",
          },
        })
        expect(asked.status).toBe(204)
        expect(asked.text).toBe("")
        expect(asked.headers.get("access-control-allow-origin")).toBe("*")
        expect(asked.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS")
        expect(asked.headers.get("access-control-allow-headers")).toBe("content-type, x-requested-with")
        expect(asked.headers.get("access-control-max-age")).toBe("86400")
        expect(asked.headers.get("access-control-allow-credentials")).toBeNull()

        // Without .view, and asking for no header: a default list that covers what clients send.
        const bare = yield* raw("OPTIONS", "/rest/getAlbum", { headers: { origin: "http://elsewhere.test" } })
        expect(bare.status).toBe(204)
        expect(bare.headers.get("access-control-allow-headers")).toContain("Content-Type")
        expect(bare.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS")

        // Only header names are echoed; a public page calling a home server is let through (Private Network Access).
        const odd = yield* raw("OPTIONS", "/rest/stream.view", {
          headers: {
            "access-control-request-headers": "x-ok, not a name, range",
            "access-control-request-private-network": "true",
          },
        })
        expect(odd.headers.get("access-control-allow-headers")).toBe("x-ok, range")
        expect(odd.headers.get("access-control-allow-private-network")).toBe("true")

        // The 405 of a wrong method names OPTIONS among the allowed ones.
        expect((yield* raw("DELETE", "/rest/ping.view")).headers.get("allow")).toContain("OPTIONS")
      }),
    )

    it.scoped("an empty p= counts as absent: u, p= and t+s sign in with the token (a web client on reload)", () =>
      Effect.gen(function* () {
        yield* arrange
        const token = withToken("alice", appPassword)
        yield* ok("ping", {}, { p: "", ...token })
        yield* ok("ping", {}, { ...token, p: "" })
        // The same in a form POST body.
        const posted = yield* raw("POST", "/rest/ping.view", {
          body: query({ u: "alice", p: "", t: token.t!, s: token.s!, c: "vitest", v: "1.16.1", f: "json" }),
          headers: { "content-type": "application/x-www-form-urlencoded", ...freshAddress() },
        })
        expect((posted.json as Json)["subsonic-response"].status).toBe("ok")
        // Empty t= and s= beside a password: the password signs in.
        yield* ok("ping", {}, { ...withPassword("alice", PASSWORD), t: "", s: "" })
        // Nothing but empty credentials is nothing: 10, never 43 or 40.
        yield* fails("ping", {}, { u: "alice", p: "", t: "", s: "" }, 10)
        // Two real credentials still conflict.
        yield* fails("ping", {}, { ...withPassword("alice", PASSWORD), t: "abc", s: "def" }, 43)
      }),
    )

    it.scoped("an empty apiKey= counts as absent: with u and p it signs in, never error 43", () =>
      Effect.gen(function* () {
        yield* arrange
        yield* ok("ping", {}, { apiKey: "", ...withPassword("alice", PASSWORD) })
        yield* ok("ping", {}, { apiKey: "", ...withToken("alice", appPassword) })
        // And empty u, p, t, s beside a key leave the key alone.
        yield* ok("tokenInfo", {}, { ...withApiKey(apiKey), u: "", p: "", t: "", s: "" })
        // A real key with a real user name is still 43.
        yield* fails("ping", {}, { ...withApiKey(apiKey), u: "alice" }, 43)
      }),
    )

    it.scoped("an empty parameter counts as absent for every method; search's query= still lists everything", () =>
      Effect.gen(function* () {
        yield* arrange
        // size= is the default size (10), genre= no filter, username= the caller.
        const random = (yield* ok("getRandomSongs", { size: "", genre: "" }, A)).randomSongs as Json
        expect(random.song.length).toBe(Math.min(10, tracksCount))
        const searched = (yield* ok("search3", { query: "", songCount: "", albumCount: 0, artistCount: 0 }, A))
          .searchResult3 as Json
        expect(searched.song.length).toBe(Math.min(20, tracksCount))
        yield* ok("getPlaylists", { username: "" }, A)
        yield* fails("getAlbum", { id: "" }, A, 10)
        yield* fails("getAlbumList2", { type: "" }, A, 10)
        // query= (empty) is not an absent query: it lists everything (how Symfonium syncs a library).
        const everything = (yield* ok("search3", { query: "", songCount: 500, albumCount: 0, artistCount: 0 }, A))
          .searchResult3 as Json
        expect(everything.song.length).toBe(tracksCount)
        yield* fails("search3", {}, A, 10)
        // updatePlaylist's comment= clears the comment.
        const created = (yield* onceOk("createPlaylist", { name: "Empty values", songId: trackId }, A)).playlist as Json
        yield* onceOk("updatePlaylist", { playlistId: created.id, comment: "kept?" }, A)
        expect(((yield* ok("getPlaylist", { id: created.id }, A)).playlist as Json).comment).toBe("kept?")
        yield* onceOk("updatePlaylist", { playlistId: created.id, comment: "" }, A)
        expect(((yield* ok("getPlaylist", { id: created.id }, A)).playlist as Json).comment).toBeUndefined()
        // Scrobble pairs id and time by position: an empty time is "now" (not 1970) and keeps the pairs aligned.
        yield* onceOk("scrobble", { id: [trackId, trackId], time: ["", String(Date.UTC(2024, 0, 2))] }, A)
        const sql = yield* SqlClient.SqlClient
        const years = yield* sql<{ year: number }>`
          SELECT extract(year FROM coalesce(ended_at, started_at))::int AS year FROM play_events ORDER BY 1`
        expect(years).toHaveLength(2)
        expect(years.every((row) => row.year >= 2024)).toBe(true)
      }),
    )

    it.scoped(
      "getIndexes and getArtists honour ifModifiedSince: nothing changed since → an empty index with the current lastModified",
      () =>
        Effect.gen(function* () {
          yield* arrange
          const full = indexesOf(yield* ok("getIndexes", {}, A), "indexes")
          const lastModified = full.lastModified
          expect(Number.isSafeInteger(lastModified) && lastModified > 0).toBe(true)
          expect(full.index.length).toBeGreaterThan(0)
          const artists = indexesOf(yield* ok("getArtists", {}, A), "artists")
          expect(artists.lastModified).toBe(lastModified)
          expect(artists.index.length).toBeGreaterThan(0)

          // Stable while the library holds still: a scan that finds nothing new does not move it.
          yield* scanNow()
          expect(indexesOf(yield* ok("getIndexes", {}, A), "indexes").lastModified).toBe(lastModified)

          // Nothing changed since: an empty index (no index element in XML), the same lastModified.
          for (const [method, key] of [
            ["getIndexes", "indexes"],
            ["getArtists", "artists"],
          ] as const) {
            const unchanged = indexesOf(yield* ok(method, { ifModifiedSince: lastModified }, A), key)
            expect(unchanged).toMatchObject({ lastModified, index: [] })
            const later = indexesOf(yield* ok(method, { ifModifiedSince: lastModified + 60_000 }, A), key)
            expect(later.index).toEqual([])
            const xml = yield* callXml(method, { ifModifiedSince: lastModified }, A)
            const element = parseXml(xml.text).getElementsByTagName(key)[0]!
            expect(element.getAttribute("lastModified")).toBe(String(lastModified))
            expect(element.getElementsByTagName("index").length).toBe(0)
            // Changed since: the whole index.
            const changed = indexesOf(yield* ok(method, { ifModifiedSince: lastModified - 1 }, A), key)
            expect(changed.index.length).toBe(key === "indexes" ? full.index.length : artists.index.length)
            // Not a number: a Subsonic error, never a 500.
            yield* fails(method, { ifModifiedSince: "yesterday" }, A, 0)
          }

          // A change to the library moves lastModified on: the old value now gets the whole index.
          const sql = yield* SqlClient.SqlClient
          const [indexed] = yield* sql<{ path: string }>`SELECT path FROM tracks WHERE id = ${trackId}`
          const source = path.isAbsolute(indexed!.path) ? indexed!.path : path.join(root, indexed!.path)
          const added = path.join(root, "Added later", `copy${path.extname(source)}`)
          fs.mkdirSync(path.dirname(added), { recursive: true })
          fs.copyFileSync(source, added)
          yield* scanNow()
          const moved = indexesOf(yield* ok("getIndexes", { ifModifiedSince: lastModified }, A), "indexes")
          expect(moved.lastModified).toBeGreaterThan(lastModified)
          expect(moved.index.length).toBeGreaterThan(0)
          const movedArtists = indexesOf(yield* ok("getArtists", { ifModifiedSince: lastModified }, A), "artists")
          expect(movedArtists.lastModified).toBe(moved.lastModified)
          expect(movedArtists.index.length).toBeGreaterThan(0)

          // A Subsonic client library's ifModifiedSince gets the same answer.
          const client = new SubsonicAPI({ url: yield* serverUrl, auth: { apiKey } })
          const cached = yield* Effect.promise(() => client.getIndexes({ ifModifiedSince: moved.lastModified }))
          expect(cached.indexes.lastModified).toBe(moved.lastModified)
          expect(cached.indexes.index ?? []).toEqual([])
          const stale = yield* Effect.promise(() =>
            client.customJSON<{ artists: { index?: Array<Json> } }>("getArtists", { ifModifiedSince: lastModified }),
          )
          expect(stale.artists.index?.length).toBeGreaterThan(0)
          // The JSON of a failed decode would have thrown in ok(); the raw JSON agrees too.
          const rawJsonAnswer = yield* callJson("getIndexes", { ifModifiedSince: moved.lastModified }, A)
          expect(indexesOf(rawJsonAnswer.body, "indexes").index).toEqual([])
        }),
    )
  },
)
