import * as path from "node:path"
import { Chunk, Duration, Effect, Queue, Stream, Take } from "effect"
import { CATALOG_DEFAULTS, type CatalogSettings } from "../../config/TonearmConfig.js"
import type { ScanErrorRow } from "../CatalogRepository.js"
import { CatalogRules } from "../CatalogRules.js"
import { splitStoredPath } from "../libraryPaths.js"
import { type ParsedFile, ParsePool } from "../ParsePool.js"
import { type ScannedFile, scannedFile, unusableReason } from "../scannedFile.js"
import type { FoundFile, SidecarStat } from "../walk.js"
import type { DirtyFolder } from "./plan.js"

/** One file's result: its catalogue row, or the scan error it becomes. */
export type ReadOutcome =
  | { readonly _tag: "Scanned"; readonly file: ScannedFile }
  | { readonly _tag: "Failed"; readonly error: ScanErrorRow; readonly folder: string }

/** A folder whose every file has been read, in the folder's file order. */
export interface ParsedFolder {
  readonly folder: string
  readonly sidecar: SidecarStat | undefined
  readonly outcomes: ReadonlyArray<ReadOutcome>
}

/** Folders written per transaction: small enough to commit often, large enough to amortise round trips. */
export const FOLDERS_PER_BATCH = 40

/** A batch waits at most this long to fill: each transaction has a fixed cost. */
export const BATCH_WINDOW = Duration.millis(250)

/** Finished jobs' folders held for the writer, so that parsing runs ahead while a batch commits. */
const READ_AHEAD = FOLDERS_PER_BATCH * 4

export const outcomeOf = (
  file: FoundFile,
  folder: string,
  parsed: ParsedFile,
  rules: Pick<CatalogSettings, "artistSeparators"> = CATALOG_DEFAULTS,
): ReadOutcome => {
  if (!parsed.ok) return { _tag: "Failed", folder, error: { ...file, message: parsed.error } }
  const reason = unusableReason(parsed.tags, file)
  return reason === undefined
    ? { _tag: "Scanned", file: scannedFile(file, folder, parsed.tags, rules) }
    : { _tag: "Failed", folder, error: { ...file, message: reason } }
}

/** One file of a parse job, and where its outcome goes. */
interface FileJob {
  readonly file: FoundFile
  readonly folderIndex: number
  readonly fileIndex: number
}

/** The folders' files, in order, cut into jobs of `size` files (across folder boundaries) as they are asked for. */
function* jobsOf(folders: ReadonlyArray<DirtyFolder>, size: number): Generator<ReadonlyArray<FileJob>> {
  let job: Array<FileJob> = []
  for (let folderIndex = 0; folderIndex < folders.length; folderIndex++) {
    const files = folders[folderIndex]!.folder.files
    for (let fileIndex = 0; fileIndex < files.length; fileIndex++) {
      job.push({ file: files[fileIndex]!, folderIndex, fileIndex })
      if (job.length === size) {
        yield job
        job = []
      }
    }
  }
  if (job.length > 0) yield job
}

/**
 * Reads the folders' files on the parse pool: one run of jobs across folder boundaries, as many at once as
 * keeps every worker busy, answered in whatever order they finish. A folder is emitted as soon as
 * its last file is read (and forgotten here then). Finished folders wait in a bounded queue, so parsing
 * runs ahead while a batch commits. (A queue of takes, not `mapEffect` with `unordered`: that runs a
 * stream per job and cost the main thread several times more.) `root` is the library's folder; the folders' paths
 * are in the index's stored form (`libraryPaths.ts`).
 */
export const readFolders = (
  root: string,
  folders: ReadonlyArray<DirtyFolder>,
): Stream.Stream<ParsedFolder, never, ParsePool> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const pool = yield* ParsePool
      const rules = yield* CatalogRules
      const reading = new Map<number, { left: number; outcomes: Array<ReadOutcome> }>()
      const completed = (job: ReadonlyArray<FileJob>, results: ReadonlyArray<ParsedFile>) => {
        const done: Array<ParsedFolder> = []
        job.forEach(({ file, folderIndex, fileIndex }, index) => {
          const { folder, sidecar } = folders[folderIndex]!
          let entry = reading.get(folderIndex)
          if (entry === undefined) {
            entry = { left: folder.files.length, outcomes: new Array<ReadOutcome>(folder.files.length) }
            reading.set(folderIndex, entry)
          }
          entry.outcomes[fileIndex] = outcomeOf(file, folder.path, results[index]!, rules)
          if (--entry.left === 0) {
            reading.delete(folderIndex)
            done.push({ folder: folder.path, sidecar, outcomes: entry.outcomes })
          }
        })
        return done
      }
      const ready = yield* Queue.bounded<Take.Take<ParsedFolder>>(READ_AHEAD)
      const jobs = jobsOf(folders, pool.filesPerJob)
      // `jobsInFlight` fibers each take the next job as they finish one: jobs are cut as they go, so a million
      // files never sit in one list (a flat list of every file cost ~50 MB at 1M).
      const reader = Effect.gen(function* () {
        for (let next = jobs.next(); next.done !== true; next = jobs.next()) {
          const job = next.value
          const results = yield* pool.parseMany(
            job.map(({ file }) => path.join(root, splitStoredPath(file.path).relative)),
          )
          const done = completed(job, results)
          if (done.length > 0) yield* Queue.offer(ready, Take.chunk(Chunk.unsafeFromArray(done)))
        }
      })
      yield* Effect.all(
        Array.from({ length: pool.jobsInFlight }, () => reader),
        {
          concurrency: "unbounded",
          discard: true,
        },
      ).pipe(Effect.zipRight(Queue.offer(ready, Take.end)), Effect.forkScoped)
      return Stream.flattenTake(Stream.fromQueue(ready))
    }),
  )

/**
 * Groups parsed folders for the writer by size and by time: a batch goes when it holds `size` folders or
 * `within` has passed, whichever comes first; a slow database gets fuller batches.
 */
export const inBatches =
  (size: number = FOLDERS_PER_BATCH, within: Duration.DurationInput = BATCH_WINDOW) =>
  <A, E, R>(folders: Stream.Stream<A, E, R>) =>
    Stream.groupedWithin(folders, size, within)
