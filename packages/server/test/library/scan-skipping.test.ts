import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { scanIgnoreRule } from "@tonearm/core"
import { ConfigProvider, Effect, Either } from "effect"
import { scanIgnoreConfig } from "../../src/config/TonearmConfig.js"
import { isWatchedChange } from "../../src/library/LibraryWatcher.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root, manifest } = await fixtureLibrary()
const audio = manifest.files.filter((file) => file.kind === "audio")
const anMp3 = audio.find((file) => file.path.toLowerCase().endsWith(".mp3"))!.path

const write = (relative: string, data: Buffer | string) => {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
  fs.writeFileSync(path.join(root, relative), data)
}
const copy = (from: string, to: string) => write(to, fs.readFileSync(path.join(root, from)))

// A band folder whose name starts with a dot, with a file whose name does too.
fs.renameSync(path.join(root, "Old Wire"), path.join(root, ".38 Special"))
const dotBand = audio
  .filter((file) => file.path.startsWith("Old Wire/"))
  .map((file) => `.38 Special/${file.path.slice(9)}`)
copy(dotBand[0]!, ".38 Special/Field Recordings/.Hidden Track.wav")
// Hidden metadata: each would be indexed (or be a scan error) if it were read.
write(".DS_Store", "\u0000\u0000\u0000\u0001Bud1")
write("Aurora Lines/Northern Static/.DS_Store", "\u0000\u0000\u0000\u0001Bud1")
write("Aurora Lines/Northern Static/._01 AppleDouble.mp3", "\u0000\u0005\u0016\u0007 not audio")
copy(anMp3, "@eaDir/01 Thumbnail Copy.mp3")
copy(anMp3, ".Trash-1000/01 Deleted.mp3")
copy(anMp3, "lost+found/#123456")
// What the operator's list names: a folder at any depth, and one path from the library folder.
copy(anMp3, "Podcasts/Episode 1.mp3")
copy(anMp3, "Aurora Lines/Podcasts/Episode 2.mp3")
const IGNORED_ALBUM = "Zoë Müller/Über Café"
/** root .DS_Store, album .DS_Store, ._ file, @eaDir, .Trash-1000, lost+found, two Podcasts, the ignored album. */
const SKIPPED = 9

const indexedPaths = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ path: string }>`SELECT path FROM tracks ORDER BY path`, (rows) => rows.map((row) => row.path)),
)

layer(TestServerLive({ libraryDir: root, scanIgnore: ["podcasts", IGNORED_ALBUM] }), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("what a scan skips", (it) => {
  it.effect("a folder whose name starts with a dot is indexed, and so is a file whose name does", () =>
    Effect.gen(function* () {
      const summary = yield* scanNow()
      const paths = yield* indexedPaths
      for (const file of dotBand) expect(paths).toContain(file)
      expect(paths).toContain(".38 Special/Field Recordings/.Hidden Track.wav")
      expect(summary.errors).toBe(manifest.files.filter((file) => file.kind === "corrupt").length)
    }),
  )

  it.effect(".DS_Store and ._ files are skipped and counted, as are @eaDir, .Trash-1000 and lost+found", () =>
    Effect.gen(function* () {
      const summary = yield* scanNow(true)
      const paths = yield* indexedPaths
      for (const hidden of ["@eaDir/", ".Trash-1000/", "lost+found/", "._"]) {
        expect(paths.filter((indexed) => indexed.includes(hidden))).toEqual([])
      }
      const sql = yield* SqlClient.SqlClient
      const errors = yield* sql<{ path: string }>`SELECT path FROM scan_errors`
      expect(errors.map((error) => error.path).filter((errorPath) => errorPath.includes("._"))).toEqual([])
      expect(summary.skipped).toBe(SKIPPED)
    }),
  )

  it.effect("the ignore list setting skips a named folder at any depth and a path from the library folder", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      yield* scanNow()
      const paths = yield* indexedPaths
      expect(paths.filter((indexed) => indexed.toLowerCase().includes("podcasts/"))).toEqual([])
      expect(paths.filter((indexed) => indexed.startsWith(`${IGNORED_ALBUM}/`))).toEqual([])
      expect(paths).toContain(anMp3)
      // The scan status says what the last scan skipped.
      const status = yield* admin.client.scan.status()
      expect(status).toMatchObject({ state: "idle", skipped: SKIPPED })
    }),
  )

  it.effect("TONEARM_SCAN_IGNORE takes a comma list or a JSON array, and a bad value names the variable", () =>
    Effect.gen(function* () {
      const read = (value: string) =>
        Effect.either(
          Effect.withConfigProvider(
            scanIgnoreConfig,
            ConfigProvider.fromMap(new Map([["TONEARM_SCAN_IGNORE", value]])),
          ),
        )
      expect(yield* read("Podcasts, *.partial")).toEqual(Either.right(["Podcasts", "*.partial"]))
      expect(yield* read('["Crosby, Stills & Nash"]')).toEqual(Either.right(["Crosby, Stills & Nash"]))
      const bad = yield* read("[nope")
      expect(Either.isLeft(bad) && String(bad.left)).toContain("TONEARM_SCAN_IGNORE")
      expect(
        yield* Effect.either(Effect.withConfigProvider(scanIgnoreConfig, ConfigProvider.fromMap(new Map()))),
      ).toEqual(Either.right([]))
    }),
  )

  it.effect("the watcher wakes for a folder whose name starts with a dot, not for what scans skip", () =>
    Effect.sync(() => {
      expect(isWatchedChange(path.join(".38 Special", "Album", "01.flac"), undefined)).toBe(true)
      expect(isWatchedChange(".38 Special", undefined)).toBe(true)
      expect(isWatchedChange(path.join("Band", "Album", ".Hidden Track.flac"), undefined)).toBe(true)
      expect(isWatchedChange(path.join("Band", "Album", ".DS_Store"), undefined)).toBe(false)
      expect(isWatchedChange(path.join("Band", "@eaDir", "01.flac@SynoEAStream"), undefined)).toBe(false)
      expect(isWatchedChange(path.join("Band", "Album", ".01.flac.Xa12"), undefined)).toBe(false)
      const ignored = scanIgnoreRule(["Podcasts", "Audiobooks/Drafts"])
      expect(isWatchedChange(path.join("Podcasts", "Episode.mp3"), undefined, ignored)).toBe(false)
      expect(isWatchedChange(path.join("Audiobooks", "Drafts", "01.mp3"), undefined, ignored)).toBe(false)
      expect(isWatchedChange(path.join("Audiobooks", "Final", "01.mp3"), undefined, ignored)).toBe(true)
    }),
  )
})
