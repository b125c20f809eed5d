import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { type ImportStatus, Mbid } from "@tonearm/core"
import { Effect, Schedule } from "effect"
import { navidromeFixtureOf, writeNavidromeDb } from "../../fixtures/navidromeDb.js"
import type { FixtureAudioFile } from "../../fixtures/types.js"
import { ENRICHMENT_DEFAULTS } from "../../src/config/TonearmConfig.js"
import { upload } from "../history/importSupport.js"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 27: everything that uses a stored path works for a track of a second library, whose stored path carries
 * `/2/` (`library/libraryPaths.ts`). Library 2 is the fixture library; library 1 a copy of it without one album, so
 * most files lie at the same path within both folders and a match on that path alone would take the wrong copy.
 */
const { root: second, manifest } = await fixtureLibrary()
const audio = manifest.files.filter((file): file is FixtureAudioFile => file.kind === "audio")
const named = Object.values(navidromeFixtureOf(manifest).paths)
/**
 * An album (by release MBID) whose every file lies in one folder, none of them a file the Navidrome fixture names:
 * that folder is left out of library 1.
 */
const onlySecond = audio.find(
  (file) =>
    file.expect.mbids.album !== null &&
    audio.every(
      (other) =>
        other.expect.mbids.album !== file.expect.mbids.album ||
        (other.album_dir === file.album_dir && !named.includes(other.path)),
    ),
)!
const first = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-first-library-"))
fs.cpSync(second, first, {
  recursive: true,
  filter: (source) => path.relative(second, source).split(path.sep).join("/") !== onlySecond.album_dir,
})
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-second-library-"))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))

/** A track of library 2 whose relative path library 1 holds too. */
const sharedTrack = (offset = 0) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; path: string; album_id: string; title: string; artist: string }>`
        SELECT t.id, t.path, t.album_id, t.title, ar.name AS artist FROM tracks t JOIN artists ar ON ar.id = t.artist_id
        WHERE t.library_id = 2 AND EXISTS (SELECT 1 FROM tracks o WHERE o.library_id = 1 AND '/2/' || o.path = t.path)
        ORDER BY t.path DESC OFFSET ${offset} LIMIT 1`,
      ([row]) => row!,
    ),
  )

/** A track's library. */
const libraryOfTrack = (trackId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ library_id: number }>`SELECT library_id FROM tracks WHERE id = ${trackId}`,
      ([row]) => row?.library_id,
    ),
  )

const trackIdAt = (stored: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ id: string }>`SELECT id FROM tracks WHERE path = ${stored}`, ([row]) => row?.id),
  )

const NO_MANAGER = { url: null, root_folder_path: "/data", quality_profile_id: 1, metadata_profile_id: 1 }

/** Uploads a Navidrome database as the admin and waits for the import to end. */
const importNavidrome = (admin: SignedIn, file: string) =>
  Effect.gen(function* () {
    const started = yield* upload(
      admin,
      fs.readFileSync(file),
      { source: "navidrome_db" },
      { path: "/api/admin/imports", fileName: "navidrome.db" },
    )
    expect(started.status).toBe(202)
    const id = (started.json as { id: string }).id as ImportStatus["id"]
    return yield* Effect.gen(function* () {
      const status = yield* admin.client.adminImports.get({ path: { id } })
      if (status.state === "queued" || status.state === "running") return yield* Effect.fail("pending" as const)
      return status
    }).pipe(
      Effect.retry({ while: (error) => error === "pending", schedule: Schedule.spaced("100 millis"), times: 1_200 }),
      Effect.orDie,
    )
  })

const likedTracks = (userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ entity_id: string }>`SELECT entity_id FROM likes WHERE user_id = ${userId} AND entity = 'track'`,
      (rows) => rows.map((row) => row.entity_id),
    ),
  )

const playedTracks = (userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ track_id: string }>`SELECT DISTINCT track_id FROM play_events WHERE user_id = ${userId}`, (rows) =>
      rows.map((row) => row.track_id),
    ),
  )

layer(
  TestServerLive({
    libraryDir: first,
    libraryDirs: [first],
    enrichment: { ...ENRICHMENT_DEFAULTS, reconcileMs: 200, managerTimeoutMs: 1000 },
  }),
  { excludeTestServices: true, timeout: "240 seconds" },
)("a second library's paths", (it) => {
  let admin: SignedIn
  let kid: SignedIn
  let bob: SignedIn

  it.effect("setup: library 1 scanned, the fixture library added as library 2 and scanned", () =>
    Effect.gen(function* () {
      admin = yield* signUpFirstAdmin("admin")
      yield* scanNow()
      // Created before library 2 existed: hears library 1 only.
      kid = yield* createAndLogIn(admin.client, "kid")
      const added = yield* rawJson("POST", "/api/admin/libraries", { name: "Fixtures", path: second }, admin.token)
      expect(added.status).toBe(201)
      expect((added.json as { id: number }).id).toBe(2)
      for (let attempt = 0; ; attempt++) {
        const status = (yield* raw("GET", "/api/admin/scan", { token: admin.token })).json as {
          libraries: Array<{ library_id: number; state: string; finished_at: string | null }>
        }
        const scan = status.libraries.find((one) => one.library_id === 2)
        if (scan !== undefined && scan.state !== "running" && scan.finished_at !== null) break
        if (attempt > 1_200) return yield* Effect.dieMessage("library 2's scan did not end")
        yield* Effect.sleep("100 millis")
      }
      bob = yield* createAndLogIn(admin.client, "bob")
      const shared = yield* sharedTrack()
      expect(shared.path.startsWith("/2/")).toBe(true)
    }),
  )

  it.effect("scan errors name a file of library 2 by its library and its path within that library", () =>
    Effect.gen(function* () {
      const corrupt = manifest.files.filter((file) => file.kind === "corrupt").map((file) => file.path)
      expect(corrupt.length).toBeGreaterThan(0)
      const page = (yield* raw("GET", "/api/admin/scan/errors?limit=500", { token: admin.token })).json as {
        items: Array<{ library_id: number; path: string }>
      }
      const pathsIn = (library: number) =>
        page.items.filter((item) => item.library_id === library).map((item) => item.path)
      expect(pathsIn(2)).toEqual(expect.arrayContaining(corrupt))
      expect(pathsIn(1)).toEqual(
        expect.arrayContaining(corrupt.filter((file) => !file.startsWith(`${onlySecond.album_dir}/`))),
      )
      for (const item of page.items) expect(item.path.startsWith("/")).toBe(false)
    }),
  )

  it.effect(
    "Navidrome import: files whose paths lie in library 2's folder match library 2's tracks, not library 1's copies",
    () =>
      Effect.gen(function* () {
        const alice = yield* createAndLogIn(admin.client, "alice")
        // Navidrome saw the same folder (paths relative to its library, as since 2025).
        const same = navidromeFixtureOf(manifest, {
          pathStyle: "relative",
          libraryPath: second,
          userNames: ["alice", "bob", "ghost"],
        })
        const file = path.join(scratch, "same-folder.db")
        writeNavidromeDb(file, same.spec)
        const status = yield* importNavidrome(admin, file)
        expect(status).toMatchObject({ state: "done", matched: 12, unmatched: 2 })
        const favourite = (yield* trackIdAt(`/2/${same.paths.favourite}`))!
        const byMbid = (yield* trackIdAt(`/2/${same.paths.byMbid}`))!
        const bobPlayed = (yield* trackIdAt(`/2/${same.paths.bobPlayed}`))!
        expect(yield* likedTracks(alice.user.id)).toEqual(expect.arrayContaining([favourite, byMbid]))
        for (const liked of yield* likedTracks(alice.user.id)) expect(yield* libraryOfTrack(liked)).toBe(2)
        expect(yield* playedTracks(bob.user.id)).toEqual([bobPlayed])

        // Navidrome saw its music mounted elsewhere (`/music`, absolute paths as before 2025): the file of the album
        // only library 2 holds tells which library the rest are in.
        const carol = yield* createAndLogIn(admin.client, "carol")
        const dave = yield* createAndLogIn(admin.client, "dave")
        const elsewhere = navidromeFixtureOf(manifest, {
          pathStyle: "absolute",
          libraryPath: "/music",
          userNames: ["carol", "dave", "erin"],
        })
        const other = path.join(scratch, "elsewhere.db")
        writeNavidromeDb(other, elsewhere.spec)
        expect(yield* importNavidrome(admin, other)).toMatchObject({ state: "done", matched: 12, unmatched: 2 })
        const carolFavourite = (yield* trackIdAt(`/2/${elsewhere.paths.favourite}`))!
        expect(yield* likedTracks(carol.user.id)).toContain(carolFavourite)
        for (const played of yield* playedTracks(dave.user.id)) expect(yield* libraryOfTrack(played)).toBe(2)
        expect((yield* playedTracks(dave.user.id)).length).toBeGreaterThan(0)
      }),
    240_000,
  )

  it.scoped("delete_via_manager: the manager is told where library 2's file lies, not a copy in library 1", () =>
    Effect.gen(function* () {
      const track = yield* sharedTrack()
      const relative = track.path.slice("/2/".length)
      // The manager keeps both folders under its own root: the same relative path in each.
      const files = [
        { id: 6, path: `/data/${path.basename(first)}/${relative}` },
        { id: 7, path: `/data/${path.basename(second)}/${relative}` },
      ]
      const lidarr = yield* Effect.promise(() =>
        startFakeServer((server) => {
          server.on("GET", "/api/v1/artist", () => ({ body: [{ id: 42, artistName: track.artist }] }))
          server.on("GET", "/api/v1/trackfile", () => ({ body: files }))
          server.on("DELETE", /^\/api\/v1\/trackfile\/\d+$/, () => ({ body: {} }))
        }),
      )
      yield* Effect.addFinalizer(() => Effect.promise(() => lidarr.stop()))
      yield* Effect.addFinalizer(() => Effect.orDie(admin.client.manager.set({ payload: NO_MANAGER })))
      yield* admin.client.manager.set({
        payload: { ...NO_MANAGER, url: lidarr.url, api_key: "k" },
      })
      const flagged = yield* rawJson("POST", `/api/tracks/${track.id}/quarantine`, { reason: "broken" }, bob.token)
      expect(flagged.status).toBe(201)
      const resolved = yield* rawJson(
        "POST",
        `/api/admin/quarantine/${(flagged.json as { id: string }).id}/resolve`,
        { action: "delete_via_manager" },
        admin.token,
      )
      expect(resolved.status, resolved.text).toBe(200)
      expect(lidarr.hits(/^\/api\/v1\/trackfile\/\d+$/).map((hit) => `${hit.method} ${hit.path}`)).toEqual([
        "DELETE /api/v1/trackfile/7",
      ])
      // Library 2's track left the library; library 1's copy stays.
      expect(yield* trackIdAt(track.path)).toBeUndefined()
      expect(yield* trackIdAt(relative)).toBeDefined()
    }),
  )

  it.effect(
    "a request becomes available once the album is in a library the requester hears; library 2 counts when heard",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const mbid = onlySecond.expect.mbids.album!
        const holders = yield* sql<{ library_id: number }>`SELECT DISTINCT library_id FROM albums WHERE mbid = ${mbid}`
        expect(holders.map((row) => row.library_id)).toEqual([2])
        const request = yield* kid.client.requests.create({
          payload: { kind: "album", mbid: Mbid.make(mbid), name: onlySecond.expect.album },
        })
        yield* admin.client.adminRequests.approve({ path: { id: request.id } })
        const statusOf = Effect.map(
          kid.client.requests.list(),
          (rows) => rows.find((row) => row.id === request.id)?.status,
        )
        // Several reconciler ticks: the album is in a library the kid does not hear.
        yield* Effect.sleep("1200 millis")
        expect(yield* statusOf).toBe("approved")
        const given = yield* rawJson(
          "PUT",
          `/api/admin/users/${kid.user.id}/libraries`,
          { library_ids: [1, 2] },
          admin.token,
        )
        expect(given.status).toBe(200)
        yield* Effect.gen(function* () {
          if ((yield* statusOf) !== "available") return yield* Effect.fail("waiting" as const)
        }).pipe(Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 100 }), Effect.orDie)
        yield* rawJson("PUT", `/api/admin/users/${kid.user.id}/libraries`, { library_ids: [1] }, admin.token)
      }),
  )

  it.effect("lyrics: a sidecar next to library 2's file is read from library 2's folder, not library 1's", () =>
    Effect.gen(function* () {
      const track = yield* sharedTrack(2)
      const relative = track.path.slice("/2/".length)
      const sidecar = path.join(second, ...relative.replace(/\.[^./]+$/, ".lrc").split("/"))
      fs.writeFileSync(sidecar, "[00:01.00]Sung in the second library\n")
      const lyrics = yield* raw("GET", `/api/tracks/${track.id}/lyrics`, { token: bob.token })
      expect(lyrics.status).toBe(200)
      expect(lyrics.json).toMatchObject({
        source: "lrc",
        lines: [{ start_ms: 1000, text: "Sung in the second library" }],
      })
      const copy = (yield* trackIdAt(relative))!
      expect((yield* raw("GET", `/api/tracks/${copy}/lyrics`, { token: bob.token })).text).not.toContain(
        "second library",
      )
    }),
  )

  it.effect(
    "Subsonic: a song of library 2 carries the virtual path, never its stored /2/ path or its folder; it streams",
    () =>
      Effect.gen(function* () {
        const key = ((yield* rawJson("POST", "/api/me/api-keys", { name: "paths" }, bob.token)).json as { key: string })
          .key
        const rest = (method: string, params: Record<string, string> = {}) =>
          raw(
            "GET",
            `/rest/${method}.view?${new URLSearchParams({ c: "t", v: "1.16.1", f: "json", apiKey: key, ...params })}`,
          )
        const track = yield* sharedTrack(1)
        const created = yield* rest("createPlaylist", { name: "Library 2", songId: track.id })
        const playlist = (created.json as { "subsonic-response": { playlist: { id: string } } })["subsonic-response"]
          .playlist.id
        const answers = [
          yield* rest("getSong", { id: track.id }),
          yield* rest("getAlbum", { id: track.album_id }),
          yield* rest("getMusicDirectory", { id: track.album_id }),
          yield* rest("search3", { query: track.title, songCount: "50" }),
          yield* rest("search2", { query: track.title, songCount: "50" }),
          yield* rest("getPlaylist", { id: playlist }),
          yield* rest("getRandomSongs", { size: "500", musicFolderId: "2" }),
          yield* rest("getIndexes", { musicFolderId: "2" }),
        ]
        const song = (answers[0]!.json as { "subsonic-response": { song: { path: string; suffix: string } } })[
          "subsonic-response"
        ].song
        expect(song.path).toMatch(/^[^/].*\/.*\/.+\.\w+$/)
        expect(song.path.startsWith("2/")).toBe(false)
        for (const answer of answers) {
          expect(answer.status).toBe(200)
          expect(answer.text).not.toContain(track.path)
          expect(answer.text).not.toContain(second)
          for (const [, found] of answer.text.matchAll(/"path":"([^"]*)"/g)) expect(found!.startsWith("/")).toBe(false)
        }
        expect(answers[3]!.text).toContain(track.id)
        expect(answers[5]!.text).toContain(track.id)
        const stream = yield* rest("stream", { id: track.id, format: "raw" })
        expect(stream.status).toBe(200)
        expect(stream.headers.get("content-type")).toMatch(/^audio\//)
      }),
  )
})
