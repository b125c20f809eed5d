import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Array as Arr, Cause, Chunk, Effect, Option, Queue } from "effect"
import { type Change, ChangeLog } from "../changes/ChangeLog.js"
import { currentDate } from "../clock.js"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { orInternal } from "../db/sqlErrors.js"
import { CatalogRepository, type FolderState, type KnownFile, type ScanErrorRow } from "./CatalogRepository.js"
import { addFolder, emptyRows, isDiscFolder } from "./catalogRows.js"
import { type ParsedFile, ParsePool } from "./ParsePool.js"
import { type ScanCounters, ScanRepository } from "./ScanRepository.js"
import { type ScannedFile, scannedFile, unusableReason } from "./scannedFile.js"
import { type FoundFile, type FoundFolder, libraryFolderUnreadableIn, type SidecarStat, walkLibrary } from "./walk.js"

export interface ScanProgress extends ScanCounters {
  readonly phase: "walking" | "reading" | "tidying" | "done"
  /** Files that must be (re)read this scan, and how many have been. */
  readonly filesToRead: number
  readonly filesRead: number
}

export interface ScanOptions {
  readonly full: boolean
  readonly onProgress?: (progress: ScanProgress) => Effect.Effect<void>
}

export interface ScanSummary extends ScanCounters {
  readonly seconds: number
}

/** Folders written per transaction: small enough to commit often, large enough to amortise round trips. */
const FOLDERS_PER_BATCH = 40

/** A batch waits up to a quarter second to gather this many folders. */
const MIN_FOLDERS_PER_BATCH = 12

const DONE = Symbol("done")

interface ParsedFolder {
  readonly folder: string
  readonly outcomes: ReadonlyArray<ReadOutcome>
}

/** A folder whose rows the database refused: its files are recorded as scan errors instead. */
const asErrors = (one: ParsedFolder): ParsedFolder => ({
  folder: one.folder,
  outcomes: one.outcomes.map((outcome): ReadOutcome => {
    const file = outcome._tag === "Scanned" ? outcome.file : outcome.error
    return {
      _tag: "Failed",
      folder: one.folder,
      error: {
        path: file.path,
        sizeBytes: file.sizeBytes,
        mtimeMs: file.mtimeMs,
        message: "its tags could not be stored; see the server log",
      },
    }
  }),
})

const changed = (known: KnownFile | undefined, file: FoundFile) =>
  known === undefined || known.sizeBytes !== file.sizeBytes || known.mtimeMs !== file.mtimeMs

type ReadOutcome =
  | { readonly _tag: "Scanned"; readonly file: ScannedFile }
  | { readonly _tag: "Failed"; readonly error: ScanErrorRow; readonly folder: string }

/**
 * Indexes the library folder. Incremental by default: a folder is re-read when any of its audio files
 * is new, changed (size or mtime) or gone, or its sidecar cover changed; `full` re-reads everything. Each
 * batch of folders commits on its own, so a scan that is killed loses nothing already indexed and the next
 * one continues from there. A file that cannot be read is recorded as a scan error and never stops the scan.
 */
export class Scanner extends Effect.Service<Scanner>()("@tonearm/server/Scanner", {
  effect: Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const sql = yield* SqlClient.SqlClient
    const scans = yield* ScanRepository
    const pool = yield* ParsePool
    const config = yield* TonearmConfig
    const root = config.libraryDir

    /** A folder's own cover, else (for `CD1`-like folders) its parent's. */
    const sidecarOf = (folder: string, sidecars: ReadonlyMap<string, SidecarStat>) => {
      const own = sidecars.get(folder)
      if (own !== undefined || folder === "" || !isDiscFolder(folder)) return own
      const parent = path.posix.dirname(folder)
      return sidecars.get(parent === "." ? "" : parent)
    }

    const outcomeOf = (file: FoundFile, folder: string, parsed: ParsedFile): ReadOutcome => {
      if (!parsed.ok) return { _tag: "Failed", folder, error: { ...file, message: parsed.error } }
      const reason = unusableReason(parsed.tags, file)
      return reason === undefined
        ? { _tag: "Scanned", file: scannedFile(file, folder, parsed.tags) }
        : { _tag: "Failed", folder, error: { ...file, message: reason } }
    }

    /** Commits some folders' rows in one transaction; counts what changed. */
    const writeFoldersWith =
      (
        knownTracks: ReadonlyMap<string, KnownFile>,
        knownErrors: ReadonlyMap<string, KnownFile>,
        full: boolean,
        sidecars: ReadonlyMap<string, { path: string; mtimeMs: number } | undefined>,
      ) =>
      (folders: ReadonlyArray<{ readonly folder: string; readonly outcomes: ReadonlyArray<ReadOutcome> }>) =>
        Effect.gen(function* () {
          const rows = emptyRows()
          const folderStates: Array<FolderState> = []
          const errors: Array<ScanErrorRow> = []
          for (const { folder, outcomes } of folders) {
            const files: Array<ScannedFile> = []
            for (const outcome of outcomes) {
              if (outcome._tag === "Scanned") files.push(outcome.file)
              else errors.push(outcome.error)
            }
            const sidecar = sidecars.get(folder)
            addFolder(rows, files, sidecar?.path ?? null)
            folderStates.push({
              path: folder,
              sidecar: sidecar?.path ?? null,
              sidecarMtimeMs: sidecar?.mtimeMs ?? null,
            })
          }
          const now = yield* currentDate
          // The batch and its change-log rows commit together, so sync never sees one without the other.
          const outcome = yield* Effect.gen(function* () {
            const clearErrors = rows.tracks.some((track) => knownErrors.has(track.path))
            const written = yield* catalog.writeBatch({ rows, folders: folderStates, errors, clearErrors, now })
            yield* changes.record(
              [
                ...written.artistIds.map(
                  (id): Change => ({ entity: "artist", entityId: id, scope: null, operation: "upsert" }),
                ),
                ...written.albumIds.map(
                  (id): Change => ({ entity: "album", entityId: id, scope: null, operation: "upsert" }),
                ),
                ...written.trackIds.map(
                  (id): Change => ({ entity: "track", entityId: id, scope: null, operation: "upsert" }),
                ),
              ],
              now,
            )
            return written
          }).pipe(sql.withTransaction, orInternal("Scanner.writeBatch"))
          const written = new Map(rows.tracks.map((track) => [track.path, track]))
          const updated = outcome.updatedPaths.filter((updatedPath) => {
            const track = written.get(updatedPath)!
            return (
              full ||
              changed(knownTracks.get(updatedPath), {
                path: updatedPath,
                sizeBytes: track.size_bytes,
                mtimeMs: track.mtime_ms,
              })
            )
          }).length
          return { added: outcome.inserted, updated, errors: errors.length }
        })

    const run = (options: ScanOptions, scanId: number) =>
      Effect.gen(function* () {
        const started = Date.now()
        const counters = { filesSeen: 0, added: 0, updated: 0, removed: 0, errors: 0 }
        let filesToRead = 0
        let filesRead = 0
        const report = (phase: ScanProgress["phase"]) =>
          options.onProgress?.({ ...counters, phase, filesToRead, filesRead }) ?? Effect.void
        yield* report("walking")

        // The folder walk and what the index already holds are read at once: one waits on the disk, the
        // other on the database.
        const [{ folders, sidecars: coverImages }, knownTracks, knownErrors, knownFolders] = yield* Effect.all(
          [walkLibrary(root), catalog.knownTracks, catalog.knownErrors, catalog.knownFolders],
          { concurrency: 4 },
        )
        const onDisk = new Set<string>()
        for (const folder of folders.values()) for (const file of folder.files) onDisk.add(file.path)
        counters.filesSeen = onDisk.size

        const removedPaths = [...knownTracks.keys()].filter((known) => !onDisk.has(known))
        const foldersLosingFiles = new Set(
          removedPaths.map((gone) => path.posix.dirname(gone)).map((d) => (d === "." ? "" : d)),
        )

        // Decide which folders to (re)read.
        const dirty: Array<{ folder: FoundFolder; sidecar: { path: string; mtimeMs: number } | undefined }> = []
        for (const folder of folders.values()) {
          const sidecar = sidecarOf(folder.path, coverImages)
          const known = knownFolders.get(folder.path)
          const sidecarChanged =
            known === undefined ||
            known.sidecar !== (sidecar?.path ?? null) ||
            known.sidecarMtimeMs !== (sidecar?.mtimeMs ?? null)
          const filesChanged = folder.files.some((file) =>
            knownErrors.has(file.path)
              ? changed(knownErrors.get(file.path), file)
              : changed(knownTracks.get(file.path), file),
          )
          if (options.full || sidecarChanged || filesChanged || foldersLosingFiles.has(folder.path)) {
            dirty.push({ folder, sidecar })
            filesToRead += folder.files.length
          }
        }
        const sidecars = new Map(dirty.map(({ folder, sidecar }) => [folder.path, sidecar]))
        const writeFolders = writeFoldersWith(knownTracks, knownErrors, options.full, sidecars)
        yield* report("reading")

        let errorsThisScan = 0
        // Parsing runs ahead of writing through a bounded queue: while one batch is committed, the workers
        // keep reading. Each take is whatever is ready, up to a batch; a slow database gets fuller batches.
        const parsed = yield* Queue.bounded<ParsedFolder | typeof DONE>(FOLDERS_PER_BATCH * 4)
        // Files are parsed in one flat stream of jobs (runs of files, across folder boundaries), as many at
        // once as keeps every worker busy; a folder goes to the writer as soon as its last file is read (and
        // is forgotten here then).
        const reading = new Map<number, { left: number; outcomes: Array<ReadOutcome> }>()
        const files = dirty.flatMap(({ folder }, folderIndex) =>
          folder.files.map((file, fileIndex) => ({ file, folder, folderIndex, fileIndex })),
        )
        yield* Effect.forEach(
          Arr.chunksOf(files, pool.filesPerJob),
          (job) =>
            pool.parseMany(job.map(({ file }) => path.join(root, file.path))).pipe(
              Effect.flatMap((results) => {
                const done: Array<ParsedFolder> = []
                job.forEach(({ file, folder, folderIndex, fileIndex }, index) => {
                  let entry = reading.get(folderIndex)
                  if (entry === undefined) {
                    entry = { left: folder.files.length, outcomes: new Array<ReadOutcome>(folder.files.length) }
                    reading.set(folderIndex, entry)
                  }
                  entry.outcomes[fileIndex] = outcomeOf(file, folder.path, results[index]!)
                  if (--entry.left === 0) {
                    reading.delete(folderIndex)
                    done.push({ folder: folder.path, outcomes: entry.outcomes })
                  }
                })
                return Queue.offerAll(parsed, done)
              }),
            ),
          { concurrency: pool.jobsInFlight, discard: true },
        ).pipe(Effect.ensuring(Queue.offer(parsed, DONE)), Effect.forkScoped)
        let finished = false
        while (!finished) {
          // Gather at least a small batch (or wait briefly for one): each transaction has a fixed cost.
          const taken: Array<ParsedFolder | typeof DONE> = [yield* Queue.take(parsed)]
          for (let waited = 0; taken.length < MIN_FOLDERS_PER_BATCH && !taken.includes(DONE) && waited < 25; waited++) {
            const more = Chunk.toReadonlyArray(yield* Queue.takeUpTo(parsed, FOLDERS_PER_BATCH - taken.length))
            if (more.length === 0) yield* Effect.sleep("10 millis")
            taken.push(...more)
          }
          taken.push(...Chunk.toReadonlyArray(yield* Queue.takeUpTo(parsed, FOLDERS_PER_BATCH - taken.length)))
          finished = taken.includes(DONE)
          const folderBatch = taken.filter((item): item is ParsedFolder => item !== DONE)
          if (folderBatch.length === 0) continue
          filesRead += folderBatch.reduce((sum, { outcomes }) => sum + outcomes.length, 0)
          // A batch the database refuses is retried folder by folder; a folder that still fails becomes
          // scan errors for its files, and the scan goes on.
          const written = yield* writeFolders(folderBatch).pipe(
            Effect.catchAll(() =>
              Effect.forEach(folderBatch, (one) =>
                writeFolders([one]).pipe(Effect.catchAll(() => writeFolders([asErrors(one)]))),
              ).pipe(
                Effect.map((parts) =>
                  parts.reduce((sum, part) => ({
                    added: sum.added + part.added,
                    updated: sum.updated + part.updated,
                    errors: sum.errors + part.errors,
                  })),
                ),
              ),
            ),
          )
          counters.added += written.added
          counters.updated += written.updated
          errorsThisScan += written.errors
          counters.errors = errorsThisScan
          yield* scans.progress(scanId, counters)
          yield* report("reading")
        }

        // Files recorded as errors earlier, still there in folders that were not re-read, still count.
        const reread = new Set(dirty.map(({ folder }) => folder.path))
        for (const errorPath of knownErrors.keys()) {
          const folder = path.posix.dirname(errorPath)
          if (onDisk.has(errorPath) && !reread.has(folder === "." ? "" : folder)) errorsThisScan++
        }
        counters.errors = errorsThisScan

        yield* report("tidying")
        const removedIds = yield* catalog.removeTracks(removedPaths)
        counters.removed = removedIds.length
        yield* changes.record(
          removedIds.map((id): Change => ({ entity: "track", entityId: id, scope: null, operation: "delete" })),
          yield* currentDate,
        )
        yield* catalog.forgetFolders([...knownFolders.keys()].filter((known) => !folders.has(known)))
        yield* catalog.forgetErrors([...knownErrors.keys()].filter((known) => !onDisk.has(known)))
        if (dirty.length > 0 || counters.removed > 0) {
          const tidied = yield* catalog.tidy
          yield* changes.record(
            [
              ...tidied.deletedAlbums.map(
                (id): Change => ({ entity: "album", entityId: id, scope: null, operation: "delete" }),
              ),
              ...tidied.deletedArtists.map(
                (id): Change => ({ entity: "artist", entityId: id, scope: null, operation: "delete" }),
              ),
              ...tidied.changedAlbums.map(
                (id): Change => ({ entity: "album", entityId: id, scope: null, operation: "upsert" }),
              ),
              ...tidied.changedArtists.map(
                (id): Change => ({ entity: "artist", entityId: id, scope: null, operation: "upsert" }),
              ),
            ],
            yield* currentDate,
          )
        }
        yield* report("done")
        return { ...counters, seconds: (Date.now() - started) / 1000 } satisfies ScanSummary
      })

    /**
     * Runs one scan to the end, or answers None at once when another scan holds the lock (on any replica).
     * `onStarted` runs as soon as the lock is taken.
     */
    const scan = (options: ScanOptions & { readonly onStarted?: Effect.Effect<void> }) =>
      Effect.scoped(
        Effect.gen(function* () {
          if (Option.isNone(yield* scans.acquireLock)) return Option.none<ScanSummary>()
          const scanId = yield* scans.start(options.full, yield* currentDate)
          if (options.onStarted) yield* options.onStarted
          const summary = yield* run(options, scanId).pipe(
            Effect.tapErrorCause((cause) =>
              Effect.gen(function* () {
                const unreadable = libraryFolderUnreadableIn(cause)
                if (Option.isSome(unreadable)) yield* Effect.logWarning(unreadable.value.message)
                else yield* Effect.logError("library scan failed", cause)
                const latest = yield* scans.latest.pipe(Effect.orElseSucceed(() => Option.none()))
                const counters = Option.match(latest, {
                  onNone: () => ({ filesSeen: 0, added: 0, updated: 0, removed: 0, errors: 0 }),
                  onSome: (row) => ({
                    filesSeen: row.files_seen,
                    added: row.added,
                    updated: row.updated,
                    removed: row.removed,
                    errors: row.errors,
                  }),
                })
                const squashed = Cause.squash(cause)
                const message = squashed instanceof Error ? squashed.message : "scan failed; see the server log"
                yield* scans.finish(scanId, "failed", counters, yield* currentDate, message).pipe(Effect.ignore)
              }),
            ),
          )
          yield* scans.finish(scanId, "completed", summary, yield* currentDate, null)
          return Option.some(summary)
        }),
      )

    return { scan, root } as const
  }),
  dependencies: [CatalogRepository.Default, ScanRepository.Default, ChangeLog.Default],
}) {}
