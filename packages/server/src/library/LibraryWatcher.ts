import * as path from "node:path"
import { isAudioPath, scanIgnoreRule } from "@tonearm/core"
import {
  Clock,
  Config,
  ConfigError,
  Duration,
  Effect,
  Either,
  Exit,
  Layer,
  Option,
  Queue,
  Runtime,
  Scope,
} from "effect"
import { scanIgnoreOf, TonearmConfig, type TonearmSettings } from "../config/TonearmConfig.js"
import { dutyLayer } from "../leases/index.js"
import { watchFolders } from "./folderWatch.js"
import { LibrariesRepository } from "./LibrariesRepository.js"
import { PRIMARY_LIBRARY } from "./libraryPaths.js"
import { type ScannedLibrary, Scanner } from "./Scanner.js"

/** How scans keep up with the library folder without being asked. */
export interface WatchSettings {
  /** Changes under the library folder start an incremental scan (`TONEARM_WATCH`, default true). */
  readonly watch: boolean
  /** Quiet time after the last change before that scan starts (`TONEARM_WATCH_DEBOUNCE_MS`, default 2000). */
  readonly debounce: Duration.Duration
  /** A scan of the whole library every so often, whatever the watcher saw (`TONEARM_SCAN_INTERVAL`; off by default). */
  readonly interval: Option.Option<Duration.Duration>
}

export const DEFAULT_WATCH_DEBOUNCE_MS = 2000

/** However busy the folder stays (a long copy), a scan starts at least this long after its first change. */
export const MAX_WATCH_DELAY = Duration.seconds(60)

/** While another scan holds the lock (an API scan, another replica), ask again this often. */
const BUSY_RETRY = Duration.seconds(1)

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * `TONEARM_SCAN_INTERVAL`: `500ms`, `30s`, `90m`, `6h`, `1d` (or Effect's `6 hours`); `0`, `off` or empty
 * turn the periodic scan off. Left: why the text is not one.
 */
export const parseScanInterval = (text: string): Either.Either<Option.Option<Duration.Duration>, string> => {
  const value = text.trim().toLowerCase()
  if (value === "" || value === "0" || value === "off" || value === "false") return Either.right(Option.none())
  const short = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(value)
  const duration =
    short !== null
      ? Option.some(Duration.millis(Number(short[1]) * UNIT_MS[short[2]!]!))
      : Duration.decodeUnknown(value)
  if (Option.isNone(duration) || !Duration.isFinite(duration.value) || Duration.toMillis(duration.value) <= 0) {
    return Either.left(`expected a duration such as 6h, 30m or 1d, or 0 to turn it off; got ${JSON.stringify(text)}`)
  }
  return Either.right(duration)
}

/** The watch settings from `TONEARM_WATCH`, `TONEARM_WATCH_DEBOUNCE_MS` and `TONEARM_SCAN_INTERVAL`. */
export const WatchSettingsConfig: Config.Config<WatchSettings> = Config.all({
  watch: Config.boolean("TONEARM_WATCH").pipe(Config.withDefault(true)),
  debounce: Config.integer("TONEARM_WATCH_DEBOUNCE_MS").pipe(
    Config.validate({ message: "must be zero or more milliseconds", validation: (ms) => ms >= 0 }),
    Config.withDefault(DEFAULT_WATCH_DEBOUNCE_MS),
    Config.map((ms) => Duration.millis(ms)),
  ),
  interval: Config.string("TONEARM_SCAN_INTERVAL").pipe(
    Config.withDefault("0"),
    Config.mapOrFail((text) =>
      Either.mapLeft(parseScanInterval(text), (message) => ConfigError.InvalidData(["TONEARM_SCAN_INTERVAL"], message)),
    ),
  ),
})

const hiddenMetadataOnly = scanIgnoreRule([])

/**
 * Whether a changed path (relative to the library folder) can matter to the index: what scans skip never
 * does (`ignored`: core's `scanIgnoreRule`, hidden metadata such as `.Trash-1000` or `@eaDir` by default), nor a
 * dotted temporary or state file that is not audio (rsync's `.01.mp3.Xa12`, a sync tool's `.state.db`), nor the
 * data folder when it sits inside the library. A folder whose name merely starts with a dot (`.38 Special`) does.
 */
export const isWatchedChange = (
  relative: string,
  dataDirRelative: string | undefined,
  ignored: (relative: string) => boolean = hiddenMetadataOnly,
): boolean => {
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return false
  const segments = relative.split(path.sep)
  if (segments.some((_, index) => ignored(segments.slice(0, index + 1).join("/")))) return false
  const name = segments[segments.length - 1]!
  if (name.startsWith(".") && name.indexOf(".", 1) > 0 && !isAudioPath(name)) return false
  return (
    dataDirRelative === undefined ||
    (relative !== dataDirRelative && !relative.startsWith(`${dataDirRelative}${path.sep}`))
  )
}

/** How often the watcher looks for libraries added or removed since it started (an admin's routes). */
export const LIBRARIES_RECHECK = Duration.seconds(10)

/**
 * Keeps the index up with each library's folder: per library, a watcher on its folder (when `watch`) and a timer
 * (when `interval` is set) wake one loop, which waits for `debounce` of quiet, then runs an incremental scan of
 * that library (size and mtime decide what is re-read, so a quiet folder costs a stat). Changes that arrive while a
 * scan runs wake the loop again, so one more scan follows it; a scan held off by another of the same library (over
 * the API or on another replica) is retried when that one ends. A watcher that cannot start (the folder is missing,
 * the inotify limit is reached) logs one warning: the server runs on and scans still
 * come from the API and the timer. Libraries added later get theirs within `LIBRARIES_RECHECK`; a removed one's
 * stops. Everything stops with the layer's scope.
 */
export const libraryWatcher = (settings: WatchSettings) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      if (!settings.watch && Option.isNone(settings.interval)) return
      const scanner = yield* Scanner
      // The libraries' folders; without the repository (a test's scanner), the configured folder as library 1.
      const libraries = yield* Effect.serviceOption(LibrariesRepository)
      const config = yield* TonearmConfig
      const watching = new Map<string, Scope.CloseableScope>()

      /** The present libraries and their folders, keyed `id:folder` (a library moved is watched anew). */
      const present = Effect.map(
        Option.match(libraries, {
          onNone: () => Effect.succeed([]),
          onSome: (repository) => repository.all.pipe(Effect.orElseSucceed(() => [])),
        }),
        (rows) => {
          const wanted = new Map<string, ScannedLibrary>()
          for (const row of rows) {
            if (row.removed_at !== null) continue
            const root = row.path ?? (row.id === PRIMARY_LIBRARY ? config.libraryDir : undefined)
            if (root !== undefined) wanted.set(`${row.id}:${root}`, { id: row.id, root })
          }
          // No row read (the database is away): the first configured folder is library 1, as it always was.
          if (!rows.some((row) => row.id === PRIMARY_LIBRARY)) {
            wanted.set(`${PRIMARY_LIBRARY}:${config.libraryDir}`, { id: PRIMARY_LIBRARY, root: config.libraryDir })
          }
          return wanted
        },
      )

      const reconcile = Effect.gen(function* () {
        const wanted = yield* present
        for (const [key, scope] of watching) {
          if (wanted.has(key)) continue
          watching.delete(key)
          yield* Scope.close(scope, Exit.void)
        }
        for (const [key, library] of wanted) {
          if (watching.has(key)) continue
          const scope = yield* Scope.make()
          watching.set(key, scope)
          yield* Scope.extend(watchOne(settings, scanner, config, library), scope)
        }
      })
      yield* Effect.addFinalizer(() =>
        Effect.forEach([...watching.values()], (scope) => Scope.close(scope, Exit.void), { discard: true }),
      )
      yield* reconcile
      yield* reconcile.pipe(Effect.delay(LIBRARIES_RECHECK), Effect.forever, Effect.forkScoped)
    }),
  )

/** One library's loop, timer and watcher, living in the scope it is extended with. */
const watchOne = (settings: WatchSettings, scanner: Scanner, config: TonearmSettings, library: ScannedLibrary) =>
  Effect.gen(function* () {
    const { dataDir } = config
    const root = library.root
    const ignored = scanIgnoreRule(scanIgnoreOf(config))
    const dataDirRelative = path.relative(root, dataDir)
    const dataInside =
      dataDirRelative !== "" && !dataDirRelative.startsWith("..") && !path.isAbsolute(dataDirRelative)
        ? dataDirRelative
        : undefined
    const wake = yield* Queue.sliding<void>(1)
    const runtime = yield* Effect.runtime<never>()

    /** Runs one incremental scan to its end, waiting for another one of this library to end first. */
    const scanWhenFree = Effect.gen(function* () {
      while (true) {
        const result = yield* scanner.scan({ full: false, library })
        if (Option.isSome(result)) {
          const done = result.value
          return yield* Effect.logInfo(
            `background scan of library ${library.id} finished in ${done.seconds.toFixed(1)} s: ${done.added} added, ` +
              `${done.updated} updated, ${done.removed} removed, ${done.skipped} skipped, ${done.errors} errors`,
          )
        }
        yield* Effect.sleep(BUSY_RETRY)
      }
    }).pipe(
      // The scanner has logged why it failed; the next change or tick tries again.
      Effect.catchAllCause(() => Effect.void),
    )

    /** Waits for a wake-up, then for `debounce` without one (at most MAX_WATCH_DELAY), then scans. */
    const oneRound = Effect.gen(function* () {
      yield* Queue.take(wake)
      const first = yield* Clock.currentTimeMillis
      while (true) {
        const more = yield* Queue.take(wake).pipe(Effect.timeoutOption(settings.debounce))
        if (Option.isNone(more)) break
        if ((yield* Clock.currentTimeMillis) - first >= Duration.toMillis(MAX_WATCH_DELAY)) break
      }
      yield* scanWhenFree
    })
    yield* Effect.forkScoped(Effect.forever(oneRound))

    if (Option.isSome(settings.interval)) {
      yield* Queue.offer(wake, undefined).pipe(Effect.delay(settings.interval.value), Effect.forever, Effect.forkScoped)
    }

    if (!settings.watch) return
    const wanted = (relative: string) => isWatchedChange(relative, dataInside, ignored)
    const onChange = (changed: string) => {
      if (wanted(path.relative(root, changed))) Queue.unsafeOffer(wake, undefined)
    }
    const onError = (error: Error) => {
      // A folder created since could not be watched (the inotify limit): scan anyway.
      Runtime.runFork(runtime)(Effect.logWarning(`library watcher: ${error.message}; scanning to catch up`))
      Queue.unsafeOffer(wake, undefined)
    }
    yield* Effect.acquireRelease(
      Effect.tryPromise(() => watchFolders(root, wanted, onChange, onError)),
      (watch) => Effect.sync(() => watch.close()),
    ).pipe(
      Effect.tap((watch) => Effect.logDebug(`watching ${root} for changes (${watch.folders()} folders)`)),
      Effect.catchAll((error) => {
        const reason = error.error instanceof Error ? error.error.message : String(error.error)
        return Effect.logWarning(
          `could not watch the library folder ${root} (${reason}); changes are indexed by the next scan` +
            (Option.isSome(settings.interval) ? " (TONEARM_SCAN_INTERVAL)" : " (POST /api/admin/scan)"),
        )
      }),
    )
  })

/** The lease under which one replica watches the folder and runs the periodic scan (issue 30). */
export const WATCHER_LEASE = "library-watcher"

/**
 * The watcher and the periodic scan with the settings from the environment, on the one replica that holds
 * WATCHER_LEASE (every replica watching the same folder would start the same scan, and wait on the scan lease).
 */
export const LibraryWatcherLive = Layer.unwrapEffect(
  Effect.map(WatchSettingsConfig, (settings) =>
    dutyLayer(WATCHER_LEASE, libraryWatcher(settings).pipe(Layer.provide(LibrariesRepository.Default))),
  ),
)
