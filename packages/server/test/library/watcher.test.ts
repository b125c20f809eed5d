import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Layer, Logger, Option, Ref } from "effect"
import {
  isWatchedChange,
  libraryWatcher,
  parseScanInterval,
  type WatchSettings,
  WatchSettingsConfig,
} from "../../src/library/LibraryWatcher.js"
import { Scanner, type ScanSummary } from "../../src/library/Scanner.js"
import { QuietLogs, testConfig } from "../support/TestServer.js"

const summary: ScanSummary = { filesSeen: 0, added: 0, updated: 0, removed: 0, errors: 0, skipped: 0, seconds: 0 }

const settingsFrom = (entries: Record<string, string>) =>
  Effect.withConfigProvider(WatchSettingsConfig, ConfigProvider.fromMap(new Map(Object.entries(entries))))

describe("watch settings", () => {
  it.effect("default to watching with a 2 s debounce and no periodic scan", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({})
      expect(settings.watch).toBe(true)
      expect(Duration.toMillis(settings.debounce)).toBe(2000)
      expect(Option.isNone(settings.interval)).toBe(true)
    }),
  )

  it.effect("read TONEARM_WATCH, TONEARM_WATCH_DEBOUNCE_MS and TONEARM_SCAN_INTERVAL", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({
        TONEARM_WATCH: "false",
        TONEARM_WATCH_DEBOUNCE_MS: "500",
        TONEARM_SCAN_INTERVAL: "6h",
      })
      expect(settings.watch).toBe(false)
      expect(Duration.toMillis(settings.debounce)).toBe(500)
      expect(Option.map(settings.interval, Duration.toMillis)).toEqual(Option.some(6 * 3_600_000))
      const bad = yield* Effect.flip(settingsFrom({ TONEARM_SCAN_INTERVAL: "sometimes" }))
      expect(String(bad)).toContain("TONEARM_SCAN_INTERVAL")
      const negative = yield* Effect.flip(settingsFrom({ TONEARM_WATCH_DEBOUNCE_MS: "-1" }))
      expect(String(negative)).toContain("TONEARM_WATCH_DEBOUNCE_MS")
    }),
  )

  it("intervals: short units, Effect's long form, and the ways to say off", () => {
    const ms = (text: string) => Either.map(parseScanInterval(text), Option.map(Duration.toMillis))
    expect(ms("6h")).toEqual(Either.right(Option.some(21_600_000)))
    expect(ms("90m")).toEqual(Either.right(Option.some(5_400_000)))
    expect(ms("1d")).toEqual(Either.right(Option.some(86_400_000)))
    expect(ms("30 s")).toEqual(Either.right(Option.some(30_000)))
    expect(ms("250ms")).toEqual(Either.right(Option.some(250)))
    expect(ms("6 hours")).toEqual(Either.right(Option.some(21_600_000)))
    for (const off of ["", "0", "off", " OFF "]) expect(ms(off)).toEqual(Either.right(Option.none()))
    for (const bad of ["6", "h", "-1h", "0h", "soon"]) expect(Either.isLeft(ms(bad))).toBe(true)
  })

  it("hidden files and the data folder inside the library are not changes", () => {
    expect(isWatchedChange("Band/Album/01.mp3", undefined)).toBe(true)
    expect(isWatchedChange("Band/Album", undefined)).toBe(true)
    expect(isWatchedChange("Band/Album/.01.mp3.Xa12", undefined)).toBe(false)
    expect(isWatchedChange(".Trash-1000/01.mp3", undefined)).toBe(false)
    expect(isWatchedChange("tonearm-data/db/base/1", "tonearm-data")).toBe(false)
    expect(isWatchedChange("tonearm-data", "tonearm-data")).toBe(false)
    expect(isWatchedChange("tonearm-database/x.mp3", "tonearm-data")).toBe(true)
    expect(isWatchedChange("../elsewhere.mp3", undefined)).toBe(false)
  })
})

/** A scanner that records its scans and takes `scanMs` for each; the first `busy` calls find the lock taken. */
const fakeScanner = (root: string, scans: Ref.Ref<number>, scanMs: number, busy = 0) => {
  let calls = 0
  return Layer.mock(Scanner, {
    _tag: "@tonearm/server/Scanner",
    root,
    scan: () =>
      Effect.gen(function* () {
        if (calls++ < busy) return Option.none<ScanSummary>()
        yield* Effect.sleep(Duration.millis(scanMs))
        yield* Ref.update(scans, (n) => n + 1)
        return Option.some(summary)
      }),
  })
}

const watching = (root: string, settings: WatchSettings, scans: Ref.Ref<number>, scanMs = 0, busy = 0) =>
  libraryWatcher(settings).pipe(
    Layer.provide(fakeScanner(root, scans, scanMs, busy)),
    Layer.provide(testConfig({ libraryDir: root })),
    Layer.provide(QuietLogs),
  )

const tempLibrary = () => fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-watch-"))

const settle = (ms: number) => Effect.sleep(Duration.millis(ms))

describe("library watcher", () => {
  it.live("a burst of changes makes one scan after the debounce; changes during a scan make one more after it", () =>
    Effect.gen(function* () {
      const root = tempLibrary()
      const scans = yield* Ref.make(0)
      yield* Effect.gen(function* () {
        yield* settle(200) // the watcher is subscribed once the layer is built; give inotify a moment
        for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `0${i}.mp3`), "x")
        yield* settle(100)
        expect(yield* Ref.get(scans)).toBe(0) // still inside the debounce
        yield* settle(1500) // debounce 300 ms + an 800 ms scan
        expect(yield* Ref.get(scans)).toBe(1)

        fs.mkdirSync(path.join(root, "Album"))
        yield* settle(700) // the next scan is running (from 300 ms after the change to 1100 ms)
        fs.writeFileSync(path.join(root, "Album", "01.flac"), "x")
        fs.writeFileSync(path.join(root, "Album", "02.flac"), "x")
        yield* settle(2400)
        expect(yield* Ref.get(scans)).toBe(3)

        fs.writeFileSync(path.join(root, ".hidden.mp3"), "x")
        yield* settle(800)
        expect(yield* Ref.get(scans)).toBe(3)
      }).pipe(
        Effect.provide(
          watching(root, { watch: true, debounce: Duration.millis(300), interval: Option.none() }, scans, 800),
        ),
        Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))),
      )
    }),
  )

  it.live("a scan held off by another one is retried when the lock frees; disabled, changes do nothing", () =>
    Effect.gen(function* () {
      const root = tempLibrary()
      const scans = yield* Ref.make(0)
      yield* Effect.gen(function* () {
        yield* settle(200)
        fs.writeFileSync(path.join(root, "01.mp3"), "x")
        yield* settle(1800) // 100 ms debounce, one refusal, 1 s later the retry
        expect(yield* Ref.get(scans)).toBe(1)
      }).pipe(
        Effect.provide(
          watching(root, { watch: true, debounce: Duration.millis(100), interval: Option.none() }, scans, 0, 1),
        ),
      )
      yield* Effect.gen(function* () {
        yield* settle(200)
        fs.writeFileSync(path.join(root, "02.mp3"), "x")
        yield* settle(600)
        expect(yield* Ref.get(scans)).toBe(1)
      }).pipe(
        Effect.provide(
          watching(root, { watch: false, debounce: Duration.millis(100), interval: Option.none() }, scans),
        ),
        Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))),
      )
    }),
  )

  it.live("the periodic scan runs every interval, with or without the watcher", () =>
    Effect.gen(function* () {
      const root = tempLibrary()
      const scans = yield* Ref.make(0)
      yield* settle(1000).pipe(
        Effect.provide(
          watching(
            root,
            { watch: false, debounce: Duration.millis(0), interval: Option.some(Duration.millis(200)) },
            scans,
          ),
        ),
        Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))),
      )
      const count = yield* Ref.get(scans)
      expect(count).toBeGreaterThanOrEqual(2)
      expect(count).toBeLessThanOrEqual(6)
      // Stopped with its scope.
      yield* settle(500)
      expect(yield* Ref.get(scans)).toBe(count)
    }),
  )

  it.live("a library folder that cannot be watched logs one warning and the server goes on", () =>
    Effect.gen(function* () {
      const missing = path.join(os.tmpdir(), `tonearm-watch-missing-${process.pid}-${Date.now()}`)
      const warnings: Array<string> = []
      const capture = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push((Array.isArray(message) ? message : [message]).join(" "))
      })
      const scans = yield* Ref.make(0)
      yield* settle(100).pipe(
        Effect.provide(
          watching(missing, { watch: true, debounce: Duration.millis(100), interval: Option.none() }, scans),
        ),
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
      )
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(`could not watch the library folder ${missing}`)
    }),
  )
})
