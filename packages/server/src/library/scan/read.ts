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

/**
 * Reads the folders' files on the parse pool: one flat run of jobs across folder boundaries, as many at
 * once as keeps every worker busy, answered in whatever order they finish. A folder is emitted as soon as
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
      const files = folders.flatMap(({ folder }, folderIndex) =>
        folder.files.map((file, fileIndex) => ({ file, folderIndex, fileIndex })),
      )
      const reading = new Map<number, { left: number; outcomes: Array<ReadOutcome> }>()
      const completed = (job: typeof files, results: ReadonlyArray<ParsedFile>) => {
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
      // Jobs cut with one slice each: Effect's Array.chunksOf slices off the rest of the array at every step, which
      // copied ~31 billion elements for a million files (the 1M scan stalled before its first batch).
      const jobs: Array<typeof files> = []
      for (let at = 0; at < files.length; at += pool.filesPerJob) jobs.push(files.slice(at, at + pool.filesPerJob))
      const ready = yield* Queue.bounded<Take.Take<ParsedFolder>>(READ_AHEAD)
      yield* Effect.forEach(
        jobs,
        (job) =>
          Effect.flatMap(
            pool.parseMany(job.map(({ file }) => path.join(root, splitStoredPath(file.path).relative))),
            (results) => {
              const done = completed(job, results)
              return done.length === 0 ? Effect.void : Queue.offer(ready, Take.chunk(Chunk.unsafeFromArray(done)))
            },
          ),
        { concurrency: pool.jobsInFlight, discard: true },
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
