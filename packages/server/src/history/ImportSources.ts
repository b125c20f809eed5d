/**
 * How an import source plugs in (issue 26). The file sources (`listenbrainz_export`, `spotify_extended`) are built
 * in: the worker thread parses and matches, ImportService writes. Other sources are values in
 * `ImportSourcePlugins` (main.ts provides the list):
 *
 * - `listens`: pulls pages of listens (Last.fm) from its own resume cursor; ImportService matches them in the
 *   worker thread and writes each page's plays, unmatched entries, counters and the page's cursor in one
 *   transaction, so a restart resumes after the last committed page and nothing doubles.
 * - `custom`: does the whole job itself (Navidrome: likes, ratings, playlists, plays per user) through the owning
 *   services, reporting counters and its cursor through `ImportProgress`.
 */
import type { ImportId, ImportSource, InvalidRequest, Listen, UnmatchedReason, UserId } from "@tonearm/core"
import { Context, type Effect, type Stream } from "effect"
import type { ImportCounters } from "./ImportRepository.js"
import type { WorkerItem } from "./importProtocol.js"
import type { ImportFailed } from "./MatchWorker.js"

export type { ImportCounters } from "./ImportRepository.js"
export type { WorkerItem as MatchedEntry } from "./importProtocol.js"
export { ImportFailed } from "./MatchWorker.js"

/** A job as a source sees it. */
export interface ImportJob {
  readonly id: ImportId
  /** Whose history it is; null for an admin's import that spans users (Navidrome). */
  readonly userId: UserId | null
  readonly requestedBy: UserId
  readonly source: ImportSource
  /** The uploaded file in the data directory (kept until the job ends), or null for a pull. */
  readonly filePath: string | null
  /** What the request said besides the file (Last.fm: `{username}`). */
  readonly params: Readonly<Record<string, unknown>>
  /** The source's own resume cursor as last committed (null on the first run). */
  readonly cursor: unknown
  readonly counters: ImportCounters
}

/** A page of listens pulled by a `listens` source, and the cursor that resumes after it. */
export interface ListenPage {
  readonly listens: ReadonlyArray<Listen>
  /** Entries the source could not read as a listen (no artist or title): listed as unmatched `incomplete`. */
  readonly incomplete?: ReadonlyArray<{
    readonly artist: string
    readonly title: string
    readonly album: string | null
    readonly started_at_ms: number
  }>
  readonly cursor: unknown
}

/** What a `custom` source reports through. */
export interface ImportProgress {
  /** Matches listens against the library in the import's worker thread (positions from `firstPosition`). */
  readonly match: (
    firstPosition: number,
    listens: ReadonlyArray<Listen>,
  ) => Effect.Effect<ReadonlyArray<WorkerItem>, ImportFailed>
  /**
   * Commits the counters (absolute values) and the source's cursor, and publishes `import.progress` (throttled).
   * Call it inside the transaction that wrote what the counters count, so a restart resumes exactly.
   */
  readonly advance: (counters: ImportCounters, cursor: unknown) => Effect.Effect<void>
  /** Lists entries that matched nothing (call it in the same transaction as `advance`, which counts them). */
  readonly unmatched: (
    rows: ReadonlyArray<{
      readonly position: number
      readonly artist: string
      readonly title: string
      readonly album: string | null
      readonly listenedAtMs: number
      readonly reason: UnmatchedReason
    }>,
  ) => Effect.Effect<void>
  /** The job's message once it is done (a summary); the last note wins. */
  readonly note: (message: string) => Effect.Effect<void>
}

export type ImportSourcePlugin =
  | {
      readonly kind: "listens"
      readonly source: ImportSource
      /** Checks a request's params before a job is created (400 `invalid_request` for a bad one). */
      readonly check?: (params: Readonly<Record<string, unknown>>) => Effect.Effect<void, InvalidRequest>
      readonly pages: (job: ImportJob) => Stream.Stream<ListenPage, ImportFailed>
    }
  | {
      readonly kind: "custom"
      readonly source: ImportSource
      /** Checks the uploaded file (its path) before a job is created. */
      readonly checkFile?: (path: string) => Effect.Effect<void, InvalidRequest>
      readonly run: (job: ImportJob, progress: ImportProgress) => Effect.Effect<void, ImportFailed>
    }

/** The sources beyond the built-in file ones (main.ts: Last.fm, Navidrome). Absent: none. */
export class ImportSourcePlugins extends Context.Tag("@tonearm/server/ImportSourcePlugins")<
  ImportSourcePlugins,
  ReadonlyArray<ImportSourcePlugin>
>() {}

/** Knobs of the import runner; tests make batches small to stop an import half-way. */
export interface ImportTuningValues {
  /** Listens per committed batch. */
  readonly batchSize: number
  /** A running job whose heartbeat is older than this is taken over (its runner died). */
  readonly staleMs: number
  /** How often an idle runner looks for a job (a new job also wakes it at once). */
  readonly pollMs: number
  /** How often a running job's heartbeat is refreshed besides each batch. */
  readonly heartbeatMs: number
  /** Least time between two `import.progress` events of one import (the final state always goes out). */
  readonly progressMs: number
  /** Library tracks per slice sent to the worker. */
  readonly catalogSlice: number
  /**
   * After each batch the runner rests this fraction of the time the batch's write took, so the database's inserts
   * leave room for listeners' requests (0: write back to back).
   */
  readonly restRatio: number
}

export class ImportTuning extends Context.Reference<ImportTuning>()("@tonearm/server/ImportTuning", {
  defaultValue: (): ImportTuningValues => ({
    batchSize: 2_000,
    staleMs: 60_000,
    pollMs: 2_000,
    heartbeatMs: 10_000,
    progressMs: 500,
    catalogSlice: 5_000,
    restRatio: 0.5,
  }),
}) {}
