import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { TonearmConfig } from "../../src/config/TonearmConfig.js"
import { BackupError, backupTo, restoreFrom } from "../../src/db/Backup.js"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { HttpAppLive } from "../../src/main.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { PASSWORD } from "../support/accounts.js"
import { adminQuery, databaseUrl } from "../support/adminDatabase.js"
import { fixtureLibrary } from "../support/library.js"
import { arrangePlays, libraryTracks } from "../support/listening.js"
import { InProcessEngine, QuietLogs, serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * Issue 30 item 3: `tonearm backup` / `tonearm restore`. A backup of a server with a library, accounts, likes, a
 * playlist and plays, restored into a fresh data directory and an empty database, serves the same library, users,
 * likes, playlists and plays (a listener signs in with their password; their session token still works).
 */
const { root } = await fixtureLibrary()
const adminUrl = inject("adminDatabaseUrl")

/** An empty database (no schema at all), dropped with the scope. */
const emptyDatabase = Effect.acquireRelease(
  Effect.gen(function* () {
    const name = `tonearm_restore_${Date.now()}_${process.pid}`
    yield* adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE template0`).pipe(Effect.orDie)
    return { name, url: Redacted.make(databaseUrl(adminUrl, name)) }
  }),
  ({ name }) => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.orDie),
)

const settingsIn = (dataDir: string) =>
  Effect.map(TonearmConfig, (config) => Layer.succeed(TonearmConfig, { ...config, dataDir }))

/** A server over `url` (already restored) and `dataDir`, on its own port, for the calling scope. */
const serverOver = (url: Redacted.Redacted, config: Layer.Layer<TonearmConfig>) =>
  Effect.gen(function* () {
    const server = HttpApiBuilder.serve().pipe(
      Layer.provide(HttpAppLive),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provide(makeDatabaseLive(pgClientLayer(url))),
      Layer.provide(config),
      Layer.provide(QuietLogs),
      Layer.provide(InProcessEngine),
    )
    const address = Context.get(yield* Layer.build(server), HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://unix"
  })

const getJson = (base: string, route: string, token: string) =>
  Effect.promise(() =>
    fetch(`${base}${route}`, { headers: { authorization: `Bearer ${token}` } }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as unknown,
    })),
  )

const signIn = (base: string, username: string) =>
  Effect.promise(() =>
    fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password: PASSWORD }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { token?: string } })),
  )

/** What a listener sees that must survive: the library, their likes, playlists and plays, their account. */
const VIEWS = ["/api/library/albums?limit=100", "/api/likes", "/api/playlists", "/api/me/plays?limit=100", "/api/me"]

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("backup and restore", (it) => {
  it.scoped(
    "a backup restored into a fresh data directory serves the same library, users, likes, playlists, plays",
    () =>
      Effect.gen(function* () {
        const source = yield* serverUrl
        const ana = yield* aUser("ana")
        const tracks = yield* libraryTracks
        expect(tracks.length).toBeGreaterThan(2)
        yield* ana.client.likes.likeTrack({ path: { id: tracks[0]!.id } })
        const playlist = yield* ana.client.playlists.create({ payload: { name: "Kept" } })
        yield* ana.client.playlists.addTracks({
          path: { id: playlist.id },
          payload: { track_ids: [tracks[1]!.id, tracks[2]!.id] },
        })
        yield* arrangePlays(ana.user.id, tracks.slice(0, 3), { times: 2 })
        const before = yield* Effect.forEach(VIEWS, (view) => getJson(source, view, ana.token))

        const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-backup-"))
        const file = path.join(workDir, "tonearm.backup")
        const lines: Array<string> = []
        const dumped = yield* backupTo(file, (line) => lines.push(line))
        expect(dumped.rows).toBeGreaterThan(0)
        expect(lines).toContainEqual(expect.stringMatching(/^play_events: 6 rows$/))
        expect(fs.statSync(file).mode & 0o077).toBe(0)
        const sourceSecret = fs.readFileSync(path.join((yield* TonearmConfig).dataDir, "stream_secret"), "utf8")

        // A fresh data directory and an empty database.
        const target = yield* emptyDatabase
        const freshDir = path.join(workDir, "data")
        const freshConfig = yield* settingsIn(freshDir)
        const restored = yield* restoreFrom(file).pipe(
          Effect.provide(pgClientLayer(target.url)),
          Effect.provide(freshConfig),
        )
        expect(restored.rows).toBe(dumped.rows)
        expect(fs.readFileSync(path.join(freshDir, "stream_secret"), "utf8")).toBe(sourceSecret)

        const copy = yield* serverOver(target.url, freshConfig)
        const signedIn = yield* signIn(copy, ana.user.username)
        expect(signedIn.status).toBe(200)
        const after = yield* Effect.forEach(VIEWS, (view) => getJson(copy, view, signedIn.body.token!))
        expect(after).toEqual(before)
        // The session the listener had before the backup still works on the copy.
        expect((yield* getJson(copy, "/api/me", ana.token)).status).toBe(200)

        // A second restore over it is refused: the database holds accounts.
        const again = yield* restoreFrom(file).pipe(
          Effect.provide(pgClientLayer(target.url)),
          Effect.provide(freshConfig),
          Effect.flip,
        )
        expect(again).toBeInstanceOf(BackupError)
        expect(again.message).toContain("already holds accounts")
        fs.rmSync(workDir, { recursive: true, force: true })
      }),
  )

  it.effect("a file that is not a backup is refused with its reason", () =>
    Effect.gen(function* () {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-backup-")), "not.backup")
      fs.writeFileSync(file, "hello")
      const error = yield* Effect.flip(restoreFrom(file))
      expect(error).toBeInstanceOf(BackupError)
      expect((error as BackupError).message).toContain("not a Tonearm backup")
    }),
  )
})
