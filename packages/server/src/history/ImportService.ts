import * as fs from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import {
  clampLimit,
  exportLine,
  type FileFormat,
  FileImportSource,
  IMPORTS_PAGE_DEFAULT,
  IMPORTS_PAGE_MAX,
  ImportCreated,
  type ImportId,
  ImportList,
  type ImportSource,
  ImportStatus,
  InvalidRequest,
  importPlaySource,
  isListensEntry,
  JsonRecordSplitter,
  type MatchCandidate,
  NotFound,
  parseRecord,
  UnmatchedListen,
  UnmatchedPage,
  type UserId,
} from "@tonearm/core"
import {
  Cause,
  Chunk,
  Config,
  DateTime,
  Duration,
  Effect,
  Either,
  Encoding,
  Layer,
  Option,
  Queue,
  Schedule,
  Schema,
  Stream,
} from "effect"
import { currentDate } from "../clock.js"
import { TonearmConfig } from "../config/TonearmConfig.js"
import type { LibraryScope } from "../db/libraryScope.js"
import { orInternal } from "../db/sqlErrors.js"
import { EventBus } from "../events/index.js"
import { collectGarbageWhenIdle } from "../idleGc.js"
import { LibraryAccess } from "../library/index.js"
import { PlaysService } from "../listening/index.js"
import { LearnedSimilarityService, RebuildService } from "../recommendations/index.js"
import { type ImportCounters, ImportRepository, type ImportRow } from "./ImportRepository.js"
import {
  type ImportJob,
  type ImportProgress,
  type ImportSourcePlugin,
  ImportSourcePlugins,
  ImportTuning,
} from "./ImportSources.js"
import type { WorkerItem } from "./importProtocol.js"
import { ImportFailed, type MatchWorker, makeMatchWorker } from "./MatchWorker.js"
import { isZip, zipEntries } from "./zip.js"

/** How much of an upload is read to check, before a job is made, that it is the export its source says. */
const SNIFF_BYTES = 256 * 1024
const SQLITE_MAGIC = "SQLite format 3\u0000"

/**
 * A long import promotes its batches' garbage (each lives across a database write) to the old generation, which V8
 * collects only once the heap has grown far: 100+ MB more RSS over a million listens. One full collection every
 * this many batches keeps it flat.
 */
const BATCHES_PER_COLLECTION = 25

const keysetCursor = {
  encode: (at: Date, id: string) => Encoding.encodeBase64Url(`${at.toISOString()}|${id}`),
  decode: (cursor: string | undefined) => {
    if (cursor === undefined || cursor === "") return null
    const [at, id] = Either.getOrUndefined(Encoding.decodeBase64UrlString(cursor))?.split("|") ?? []
    const time = at === undefined ? Number.NaN : Date.parse(at)
    return Number.isNaN(time) || id === undefined ? null : { createdAt: new Date(time), id }
  },
}

const FileCursor = Schema.Struct({ position: Schema.Int })
const SourceCursor = Schema.Struct({ source: Schema.Unknown })
const isFileCursor = Schema.is(FileCursor)
const isSourceCursor = Schema.is(SourceCursor)

const isFileSource = Schema.is(FileImportSource)

const countersOf = (row: ImportRow): ImportCounters => ({
  total: row.total,
  matched: row.matched,
  unmatched: row.unmatched,
  duplicates: row.duplicates,
  added: row.added,
})

const statusOf = (row: ImportRow): ImportStatus =>
  new ImportStatus({
    id: row.id,
    source: row.source,
    state: row.state,
    total: row.total,
    matched: row.matched,
    unmatched: row.unmatched,
    duplicates: row.duplicates,
    started_at: row.started_at === null ? null : DateTime.unsafeFromDate(row.started_at),
    finished_at: row.finished_at === null ? null : DateTime.unsafeFromDate(row.finished_at),
    message: row.message,
  })

const notFound = () => new NotFound({ message: "no such import", resource: "import" })
const badFile = (message: string) => new InvalidRequest({ message: `file: ${message}` })

/**
 * Checks, on a bounded prefix, that an upload is the export its source says (400 before any job exists): a zip
 * must list listening-history files; JSON must open with a record of the format.
 */
const sniff = (filePath: string, format: FileFormat): Effect.Effect<void, InvalidRequest> =>
  Effect.tryPromise({
    try: async (): Promise<string | null> => {
      const handle = await fs.open(filePath, "r")
      try {
        if (await isZip(handle)) {
          const entries = await zipEntries(handle)
          return entries.some((entry) => isListensEntry(format, entry.name))
            ? null
            : "the zip holds no listening history files"
        }
        const buffer = Buffer.alloc(SNIFF_BYTES)
        const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
        if (bytesRead === 0) return "the file is empty"
        const splitter = new JsonRecordSplitter()
        const records = splitter.feed(new TextDecoder().decode(buffer.subarray(0, bytesRead), { stream: true }))
        if (bytesRead < SNIFF_BYTES) splitter.end()
        if (records.length === 0) return bytesRead < SNIFF_BYTES ? "the file holds no records" : null
        const readable = records.some((record) => parseRecord(format, JSON.parse(record))._tag !== "invalid")
        return readable
          ? null
          : `not a ${format === "spotify_extended" ? "Spotify streaming history" : "ListenBrainz export"}`
      } finally {
        await handle.close()
      }
    },
    catch: (error) => badFile(error instanceof Error ? error.message : "unreadable"),
  }).pipe(Effect.flatMap((problem) => (problem === null ? Effect.void : Effect.fail(badFile(problem)))))

const sniffSqlite = (filePath: string): Effect.Effect<void, InvalidRequest> =>
  Effect.tryPromise({
    try: async () => {
      const handle = await fs.open(filePath, "r")
      try {
        const head = Buffer.alloc(16)
        const { bytesRead } = await handle.read(head, 0, 16, 0)
        return bytesRead === 16 && head.toString("latin1") === SQLITE_MAGIC
      } finally {
        await handle.close()
      }
    },
    catch: () => badFile("unreadable"),
  }).pipe(Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail(badFile("not an SQLite database")))))

/**
 * History imports and the export (contract "Listening history in and out"). A request stores the upload and
 * queues a job; the runner (ImportRunnerLive) claims jobs one at a time and runs them: parsing and matching in a
 * worker thread, writing plays in batches, each batch with the job's counters and resume cursor in one
 * transaction. A restart resumes a job from its cursor; the idempotence rule (same track, same second) makes a
 * replayed batch add nothing.
 */
export class ImportService extends Effect.Service<ImportService>()("@tonearm/server/ImportService", {
  effect: Effect.gen(function* () {
    const imports = yield* ImportRepository
    const plays = yield* PlaysService
    const access = yield* LibraryAccess
    const rebuilds = yield* RebuildService
    const learned = yield* LearnedSimilarityService
    const events = yield* EventBus
    const config = yield* TonearmConfig
    const sql = yield* SqlClient.SqlClient
    const plugins: ReadonlyArray<ImportSourcePlugin> = Option.getOrElse(
      yield* Effect.serviceOption(ImportSourcePlugins),
      () => [],
    )
    const pluginOf = (source: ImportSource) => plugins.find((plugin) => plugin.source === source)
    /** Wakes the runner at once when a job is queued. */
    const wake = yield* Queue.sliding<true>(1)
    const uploadsDir = path.join(config.dataDir, "imports")

    const owned = (user: UserId, id: ImportId) =>
      Effect.flatMap(imports.find(id), (row) =>
        Option.isSome(row) && row.value.user_id === user ? Effect.succeed(row.value) : Effect.fail(notFound()),
      )

    const removeFile = (filePath: string | null) =>
      filePath === null ? Effect.void : Effect.promise(() => fs.rm(filePath, { force: true }))

    const queue = (job: {
      userId: UserId | null
      requestedBy: UserId
      source: ImportSource
      filePath: string | null
      fileName: string | null
      params: Record<string, unknown>
    }) =>
      Effect.gen(function* () {
        const row = yield* imports.create({ ...job, now: yield* currentDate })
        yield* Queue.offer(wake, true)
        return new ImportCreated({ id: row.id })
      })

    /** A listener's upload: a ListenBrainz export or a Spotify history (checked before the job exists). */
    const createFromUpload = Effect.fn("ImportService.createFromUpload")(function* (
      user: UserId,
      upload: { readonly filePath: string; readonly fileName: string; readonly source: string | undefined },
    ) {
      const checked = Effect.gen(function* () {
        if (upload.source === undefined)
          return yield* new InvalidRequest({
            message: "source: give `listenbrainz_export` or `spotify_extended` (form field or ?source=)",
          })
        if (!isFileSource(upload.source))
          return yield* new InvalidRequest({
            message: `source: ${upload.source} is not imported from an uploaded file here`,
          })
        yield* sniff(upload.filePath, upload.source)
        return upload.source
      })
      const source = yield* checked.pipe(Effect.tapError(() => removeFile(upload.filePath)))
      return yield* queue({
        userId: user,
        requestedBy: user,
        source,
        filePath: upload.filePath,
        fileName: upload.fileName,
        params: {},
      })
    })

    /** An admin's upload (Navidrome's database): handled by its source plugin, across users. */
    const createAdminUpload = Effect.fn("ImportService.createAdminUpload")(function* (
      admin: UserId,
      upload: { readonly filePath: string; readonly fileName: string; readonly source: string | undefined },
    ) {
      const checked = Effect.gen(function* () {
        if (upload.source !== undefined && upload.source !== "navidrome_db")
          return yield* new InvalidRequest({ message: "source: the admin import takes `navidrome_db`" })
        const plugin = pluginOf("navidrome_db")
        if (plugin === undefined || plugin.kind !== "custom")
          return yield* new InvalidRequest({ message: "source: navidrome_db imports are not available" })
        yield* sniffSqlite(upload.filePath)
        if (plugin.checkFile !== undefined) yield* plugin.checkFile(upload.filePath)
      })
      yield* checked.pipe(Effect.tapError(() => removeFile(upload.filePath)))
      return yield* queue({
        userId: null,
        requestedBy: admin,
        source: "navidrome_db",
        filePath: upload.filePath,
        fileName: upload.fileName,
        params: {},
      })
    })

    /** A pull from an account elsewhere (Last.fm `{source, username}`). */
    const createPull = Effect.fn("ImportService.createPull")(function* (
      user: UserId,
      request: { readonly source: ImportSource; readonly username: string },
    ) {
      const plugin = pluginOf(request.source)
      if (plugin === undefined || plugin.kind !== "listens")
        return yield* new InvalidRequest({ message: `source: ${request.source} imports are not available` })
      const params = { username: request.username }
      if (plugin.check !== undefined) yield* plugin.check(params)
      return yield* queue({
        userId: user,
        requestedBy: user,
        source: request.source,
        filePath: null,
        fileName: null,
        params,
      })
    })

    const get = Effect.fn("ImportService.get")(function* (user: UserId, id: ImportId) {
      return statusOf(yield* owned(user, id))
    })

    const adminGet = Effect.fn("ImportService.adminGet")(function* (id: ImportId) {
      const row = yield* imports.find(id)
      if (Option.isNone(row)) return yield* notFound()
      return statusOf(row.value)
    })

    const list = Effect.fn("ImportService.list")(function* (
      user: UserId,
      query: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
    ) {
      const limit = clampLimit(query.limit, IMPORTS_PAGE_DEFAULT, IMPORTS_PAGE_MAX)
      const rows = yield* imports.listForUser(user, keysetCursor.decode(query.cursor), limit + 1)
      const page = rows.slice(0, limit)
      const last = page.at(-1)
      return new ImportList({
        items: page.map(statusOf),
        cursor: rows.length > limit && last !== undefined ? keysetCursor.encode(last.created_at, last.id) : null,
      })
    })

    type PageQuery = { readonly limit?: number | undefined; readonly cursor?: string | undefined }

    /** The caller's own import's unmatched entries; another user's import is 404. */
    const unmatched = Effect.fn("ImportService.unmatched")(function* (user: UserId, id: ImportId, query: PageQuery) {
      yield* owned(user, id)
      return yield* unmatchedPage(id, query)
    })

    /** Any import's unmatched entries, for an admin (a Navidrome import belongs to no one user). */
    const adminUnmatched = Effect.fn("ImportService.adminUnmatched")(function* (id: ImportId, query: PageQuery) {
      if (Option.isNone(yield* imports.find(id))) return yield* notFound()
      return yield* unmatchedPage(id, query)
    })

    const unmatchedPage = Effect.fn("ImportService.unmatchedPage")(function* (id: ImportId, query: PageQuery) {
      const limit = clampLimit(query.limit, IMPORTS_PAGE_DEFAULT, IMPORTS_PAGE_MAX)
      const after = query.cursor === undefined || !/^\d+$/.test(query.cursor) ? -1 : Number(query.cursor)
      const rows = yield* imports.unmatchedPage(id, after, limit + 1)
      const page = rows.slice(0, limit)
      const last = page.at(-1)
      return new UnmatchedPage({
        items: page.map(
          (row) =>
            new UnmatchedListen({
              position: row.position,
              artist: row.artist,
              title: row.title,
              album: row.album,
              listened_at: DateTime.unsafeFromDate(row.listened_at),
              reason: row.reason,
            }),
        ),
        cursor: rows.length > limit && last !== undefined ? String(last.position) : null,
      })
    })

    // ---- The runner ----

    /** Sends the library to the worker a slice at a time (the main thread never holds it all). */
    const loadCatalog = (worker: MatchWorker, slice: number) =>
      Effect.gen(function* () {
        let after: string | null = null
        while (true) {
          const rows: ReadonlyArray<MatchCandidate> = yield* imports.candidates(after, slice)
          if (rows.length === 0) return
          yield* worker.loadCatalog(rows)
          after = rows[rows.length - 1]!.track_id
          if (rows.length < slice) return
        }
      })

    const runJob = (row: ImportRow) =>
      Effect.gen(function* () {
        const tuning = yield* ImportTuning
        let counters = countersOf(row)
        let lastPublished = 0
        let batches = 0
        const notify = row.user_id ?? row.requested_by
        const publish = (state: "running" | "done" | "failed", force: boolean) =>
          Effect.gen(function* () {
            const now = Date.now()
            if (!force && now - lastPublished < tuning.progressMs) return
            lastPublished = now
            yield* events.publish("import.progress", notify as UserId, {
              import_id: row.id,
              state,
              total: counters.total,
              matched: counters.matched,
              unmatched: counters.unmatched,
              duplicates: counters.duplicates,
            })
          })
        const stored = row.cursor
        const job: ImportJob = {
          id: row.id,
          userId: row.user_id as UserId | null,
          requestedBy: row.requested_by as UserId,
          source: row.source,
          filePath: row.file_path,
          params: (row.params ?? {}) as Record<string, unknown>,
          cursor: isSourceCursor(stored) ? stored.source : null,
          counters,
        }

        /** One batch: plays, unmatched entries, counters and cursor in one transaction. */
        const writeBatch = (items: ReadonlyArray<WorkerItem>, cursor: unknown) =>
          Effect.gen(function* () {
            const hits = items.flatMap((item) => (item.status === "matched" ? [item] : []))
            const misses = items.flatMap((item) => (item.status === "matched" ? [] : [item]))
            const now = yield* currentDate
            const writeStarted = performance.now()
            const next = yield* Effect.gen(function* () {
              const added =
                job.userId === null
                  ? 0
                  : yield* plays.importPlays(
                      job.userId,
                      importPlaySource(job.source),
                      hits.map((hit) => ({
                        trackId: hit.track_id,
                        startedAtMs: hit.started_at_ms,
                        msPlayed: hit.ms_played,
                        trackDurationMs: hit.track_duration_ms,
                      })),
                    )
              yield* imports.insertUnmatched(
                row.id,
                misses.map((miss) => ({
                  position: miss.position,
                  artist: miss.artist,
                  title: miss.title,
                  album: miss.album,
                  listenedAtMs: miss.started_at_ms,
                  reason: miss.status === "incomplete" ? ("incomplete" as const) : ("no_match" as const),
                })),
              )
              const next: ImportCounters = {
                total: counters.total + items.length,
                matched: counters.matched + hits.length,
                unmatched: counters.unmatched + misses.length,
                duplicates: counters.duplicates + hits.length - added,
                added: counters.added + added,
              }
              yield* imports.advance(row.id, next, cursor, now)
              return next
            }).pipe(sql.withTransaction, orInternal("ImportService.writeBatch"))
            counters = next
            if (tuning.restRatio > 0)
              yield* Effect.sleep(Duration.millis((performance.now() - writeStarted) * tuning.restRatio))
            batches++
            if (batches % BATCHES_PER_COLLECTION === 0) collectGarbageWhenIdle()
            yield* publish("running", false)
          })

        /** What a custom source ends with (Navidrome's summary), written as the job's message when it is done. */
        let note: string | null = null
        const progress = (worker: MatchWorker): ImportProgress => ({
          match: worker.match,
          advance: (next, cursor) =>
            Effect.gen(function* () {
              yield* imports.advance(row.id, next, { source: cursor }, yield* currentDate)
              counters = next
              yield* publish("running", false)
            }).pipe(Effect.orDie),
          unmatched: (rows) => imports.insertUnmatched(row.id, rows).pipe(Effect.orDie),
          note: (message) =>
            Effect.sync(() => {
              note = message
            }),
        })

        const body = Effect.gen(function* () {
          const worker = yield* makeMatchWorker
          const plugin = pluginOf(row.source)
          yield* loadCatalog(worker, tuning.catalogSlice)
          // The catalogue's rows are in the worker now: their copies here are garbage.
          collectGarbageWhenIdle()
          if (plugin?.kind === "custom") return yield* plugin.run(job, progress(worker))
          if (isFileSource(row.source)) {
            if (row.file_path === null)
              return yield* new ImportFailed({ message: "the uploaded file is gone", badFile: false })
            const skip = isFileCursor(stored) ? stored.position : 0
            yield* worker.readFile(row.file_path, row.source, skip, tuning.batchSize, (items, position) =>
              writeBatch(items, { position }),
            )
            return
          }
          if (plugin?.kind !== "listens")
            return yield* new ImportFailed({ message: `${row.source} imports are not available`, badFile: false })
          yield* Stream.runForEach(plugin.pages(job), (page) =>
            Effect.gen(function* () {
              const matched = yield* worker.match(counters.total, page.listens)
              const first = counters.total + matched.length
              const incomplete: Array<WorkerItem> = (page.incomplete ?? []).map((entry, i) => ({
                position: first + i,
                status: "incomplete",
                started_at_ms: entry.started_at_ms,
                artist: entry.artist,
                title: entry.title,
                album: entry.album,
              }))
              yield* writeBatch([...matched, ...incomplete], { source: page.cursor })
            }),
          )
        })

        const heartbeat = Effect.flatMap(currentDate, (now) => imports.heartbeat(row.id, now)).pipe(
          Effect.ignore,
          Effect.repeat({ schedule: Schedule.spaced(Duration.millis(tuning.heartbeatMs)) }),
          Effect.delay(Duration.millis(tuning.heartbeatMs)),
        )

        const outcome = yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Effect.forkScoped(heartbeat)
            yield* body
          }),
        ).pipe(Effect.exit)
        if (outcome._tag === "Success") {
          yield* imports.finish(row.id, "done", note, yield* currentDate)
          yield* removeFile(row.file_path)
          yield* publish("done", true)
          // New plays change the co-listening: the learned similarity is refitted in the background.
          if (counters.added > 0) yield* learned.refitInBackground
          // New plays change the taste: the listener's mixes are rebuilt once now, not at 03:00.
          if (job.userId !== null && counters.added > 0)
            yield* rebuilds
              .rebuild(job.userId)
              .pipe(Effect.catchAllCause((cause) => Effect.logWarning("rebuild after an import failed", cause)))
          return
        }
        if (Cause.isInterruptedOnly(outcome.cause)) return yield* Effect.interrupt
        const failure = Cause.failureOption(outcome.cause)
        const message =
          Option.isSome(failure) && failure.value instanceof ImportFailed
            ? failure.value.message
            : "the import stopped on an internal error"
        if (!(Option.isSome(failure) && failure.value instanceof ImportFailed))
          yield* Effect.logError(`import ${row.id} failed`, outcome.cause)
        yield* imports.finish(row.id, "failed", message, yield* currentDate)
        yield* removeFile(row.file_path)
        yield* publish("failed", true)
      }).pipe(
        // A runner stopped mid-way (shutdown) hands the job back; the next runner resumes it from its cursor.
        Effect.onInterrupt(() => imports.release(row.id).pipe(Effect.ignore)),
      )

    /** Claims and runs one job; answers whether there was one. */
    const runNext = Effect.gen(function* () {
      const tuning = yield* ImportTuning
      const now = yield* currentDate
      const claimed = yield* imports.claimNext(now, new Date(now.getTime() - tuning.staleMs))
      if (Option.isNone(claimed)) return false
      yield* runJob(claimed.value)
      return true
    })

    /** Waits for a new job or the poll interval, whichever comes first. */
    const awaitWork = Effect.flatMap(ImportTuning, (tuning) =>
      Queue.take(wake).pipe(Effect.timeout(Duration.millis(tuning.pollMs)), Effect.ignore),
    )

    /** The caller's whole history, oldest first, as ListenBrainz JSON lines; read a page at a time. */
    const exportLines = (user: UserId): Stream.Stream<Uint8Array, never> => {
      const encoder = new TextEncoder()
      // Read after the route has answered: the user's libraries are taken first (issue 27), not the caller's.
      return Stream.unwrap(
        Effect.map(access.forUserId(user).pipe(Effect.orDie), (scope) => exportStream(user, scope, encoder)),
      )
    }

    const exportStream = (
      user: UserId,
      scope: LibraryScope,
      encoder: { readonly encode: (text: string) => Uint8Array },
    ): Stream.Stream<Uint8Array, never> =>
      Stream.paginateChunkEffect(null as { startedAt: Date; id: string } | null, (after) =>
        plays.exportPage(user, after, 1_000).pipe(
          LibraryAccess.withScope(scope),
          Effect.map((rows) => {
            const text = rows
              .map(
                (row) =>
                  `${exportLine({
                    started_at_ms: row.started_at.getTime(),
                    artist: row.artist,
                    title: row.title,
                    album: row.album,
                    recording_mbid: row.mbid,
                    track_duration_ms: row.track_duration_ms,
                    duration_played_ms: row.duration_played_ms,
                    track_id: row.track_id,
                    source: row.source,
                    skipped: row.skipped,
                  })}\n`,
              )
              .join("")
            const last = rows.at(-1)
            return [
              rows.length === 0 ? Chunk.empty<Uint8Array>() : Chunk.of(encoder.encode(text)),
              last === undefined || rows.length < 1_000
                ? Option.none()
                : Option.some({ startedAt: last.started_at, id: last.id }),
            ] as const
          }),
          Effect.orDie,
        ),
      )

    return {
      uploadsDir,
      createFromUpload,
      createAdminUpload,
      createPull,
      get,
      adminGet,
      list,
      unmatched,
      adminUnmatched,
      runNext,
      awaitWork,
      exportLines,
    } as const
  }),
  dependencies: [ImportRepository.Default],
}) {}

/** The import runner: one job at a time per process, woken by new jobs, polling for handed-back or stale ones. */
export const ImportRunnerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const service = yield* ImportService
    const loop = service.runNext.pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logError("the import runner failed a round", cause), false)),
      Effect.flatMap((ran) => (ran ? Effect.void : service.awaitWork)),
      Effect.forever,
    )
    // With the replicas' lease time set (`TONEARM_LEASE_TTL_MS`), a dead runner's import is taken over after it,
    // as every other duty is, instead of after the runner's own 60 s (issue 29 item 4).
    const leaseTtl = yield* Effect.orDie(Config.option(Config.integer("TONEARM_LEASE_TTL_MS")))
    const tuned = Option.match(leaseTtl, {
      onNone: () => loop,
      onSome: (ttlMs) =>
        Effect.flatMap(ImportTuning, (tuning) =>
          Effect.provideService(loop, ImportTuning, {
            ...tuning,
            staleMs: ttlMs,
            heartbeatMs: Math.max(100, Math.floor(ttlMs / 4)),
          }),
        ),
    })
    yield* Effect.forkScoped(tuned)
  }),
)
