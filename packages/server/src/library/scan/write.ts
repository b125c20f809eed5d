import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ChangeLog, changesOf } from "../../changes/index.js"
import { currentDate } from "../../clock.js"
import { orInternal, refusalsAsFailures } from "../../db/sqlErrors.js"
import { CatalogRepository, type FolderState, type ScanErrorRow } from "../CatalogRepository.js"
import { CatalogRules } from "../CatalogRules.js"
import { addFolder, emptyRows } from "../catalogRows.js"
import type { ScannedFile } from "../scannedFile.js"
import { type MoveCandidates, noMoves } from "./moves.js"
import { changed, type KnownIndex } from "./plan.js"
import type { ParsedFolder, ReadOutcome } from "./read.js"

/** What one batch changed in the index. */
export interface Written {
  readonly added: number
  readonly updated: number
  readonly errors: number
}

const nothingWritten: Written = { added: 0, updated: 0, errors: 0 }

const sum = (a: Written, b: Written): Written => ({
  added: a.added + b.added,
  updated: a.updated + b.updated,
  errors: a.errors + b.errors,
})

/** A folder whose rows the database refused: its files are recorded as scan errors instead. */
export const asErrors = (one: ParsedFolder): ParsedFolder => ({
  ...one,
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

/**
 * Commits some folders' rows and their change-log rows in one transaction; counts what changed. A new file
 * that is a moved copy of a vanished track takes that track's row (same id) at its new path.
 */
const writeFolders = (
  known: KnownIndex,
  full: boolean,
  folders: ReadonlyArray<ParsedFolder>,
  candidates: MoveCandidates,
) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const sql = yield* SqlClient.SqlClient
    const rules = yield* CatalogRules
    const rows = emptyRows()
    const folderStates: Array<FolderState> = []
    const errors: Array<ScanErrorRow> = []
    for (const { folder, sidecar, outcomes } of folders) {
      const files: Array<ScannedFile> = []
      for (const outcome of outcomes) {
        if (outcome._tag === "Scanned") files.push(outcome.file)
        else errors.push(outcome.error)
      }
      addFolder(rows, files, sidecar?.path ?? null, rules.sortArticles)
      folderStates.push({ path: folder, sidecar: sidecar?.path ?? null, sidecarMtimeMs: sidecar?.mtimeMs ?? null })
    }
    const newFiles = folders.flatMap(({ outcomes }) =>
      outcomes.flatMap((outcome) =>
        outcome._tag === "Scanned" && !known.tracks.has(outcome.file.path) && !candidates.paths.has(outcome.file.path)
          ? [outcome.file]
          : [],
      ),
    )
    const moves = candidates.match(newFiles)
    const now = yield* currentDate
    // The batch and its change-log rows commit together, so sync never sees one without the other.
    const outcome = yield* Effect.gen(function* () {
      const clearErrors = rows.tracks.some((track) => known.errors.has(track.path))
      const written = yield* catalog.writeBatch({
        rows,
        folders: folderStates,
        errors,
        clearErrors,
        moves,
        keptAlbums: candidates.keptAlbums,
        keptArtists: candidates.keptArtists,
        // A batch of files new to the index (a first scan) has no album or artist ids to carry over; moved ones do.
        reindexed: moves.length > 0 || rows.tracks.some((track) => known.tracks.has(track.path)),
        now,
      })
      yield* changes.record(
        [
          ...changesOf("artist", "upsert", written.artistIds),
          ...changesOf("album", "upsert", written.albumIds),
          ...changesOf("track", "upsert", written.trackIds),
        ],
        now,
      )
      return written
    }).pipe(sql.withTransaction, orInternal("Scanner.writeBatch"))
    candidates.claim(moves)
    const written = new Map(rows.tracks.map((track) => [track.path, track]))
    // A full scan rewrites every track; only a track whose file changed counts as updated otherwise.
    const updated = outcome.updatedPaths.filter((updatedPath) => {
      const track = written.get(updatedPath)!
      return (
        full ||
        changed(known.tracks.get(updatedPath), {
          path: updatedPath,
          sizeBytes: track.size_bytes,
          mtimeMs: track.mtime_ms,
        })
      )
    }).length
    return { added: outcome.inserted, updated, errors: errors.length } satisfies Written
  })

/**
 * Commits one batch of folders. A batch the database refuses is retried folder by folder; a folder that
 * still fails becomes scan errors for its files, and the scan goes on.
 */
export const writeBatch = (
  known: KnownIndex,
  full: boolean,
  batch: ReadonlyArray<ParsedFolder>,
  candidates: MoveCandidates = noMoves(),
) =>
  refusalsAsFailures(writeFolders(known, full, batch, candidates)).pipe(
    Effect.catchAll(() =>
      Effect.reduce(batch, nothingWritten, (total, one) =>
        refusalsAsFailures(writeFolders(known, full, [one], candidates)).pipe(
          Effect.catchAll(() => writeFolders(known, full, [asErrors(one)], candidates)),
          Effect.map((part) => sum(total, part)),
        ),
      ),
    ),
    Effect.withSpan("Scanner.write"),
  )
