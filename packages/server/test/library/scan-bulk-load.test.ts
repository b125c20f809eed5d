import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { CatalogRepository } from "../../src/library/CatalogRepository.js"
import { LibraryService, ScanService } from "../../src/library/index.js"
import { BULK_LOAD_MIN_FILES, BulkLoadMinFiles, bulkLoadsSearch } from "../../src/library/scan/tidy.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * A scan that reads at least as many files as the library holds (a first scan, a full rescan) drops the search
 * indexes and builds them once at its end; nothing is ever left searching without them.
 */
const TRACKS = 60
const root = await syntheticLibrary(TRACKS, 23)

const SEARCH_INDEXES = [
  "indexed_albums_search_document_idx",
  "indexed_albums_search_order_idx",
  "indexed_tracks_search_document_idx",
  "indexed_tracks_search_order_idx",
]

/** The search indexes that exist, by name, with their relation ids (a rebuilt index has a new one). */
const searchIndexes = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ name: string; oid: number }>`
      SELECT c.relname AS name, c.oid::int AS oid FROM pg_class c
      WHERE c.relkind = 'i' AND c.relname IN ${sql.in(SEARCH_INDEXES)} ORDER BY c.relname`,
    (rows) => new Map(rows.map((row) => [row.name, row.oid])),
  ),
)

/** The titles the search finds for the first track's title, and that title. */
const searchOfFirstTitle = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [one] = yield* sql<{ title: string }>`SELECT title FROM tracks ORDER BY path LIMIT 1`
  const found = yield* Effect.flatMap(LibraryService, (library) => library.search(one!.title, undefined))
  return { title: one!.title, found: found.tracks.map((track) => track.title) }
})

describe("bulk loads of the search", () => {
  it("a scan loads in bulk when it reads at least 2,000 files and at least as many as every library holds", () => {
    expect(bulkLoadsSearch(BULK_LOAD_MIN_FILES, 0)).toBe(true)
    expect(bulkLoadsSearch(BULK_LOAD_MIN_FILES - 1, 0)).toBe(false)
    expect(bulkLoadsSearch(100_000, 100_000)).toBe(true)
    expect(bulkLoadsSearch(99_999, 100_000)).toBe(false)
    expect(bulkLoadsSearch(10, 5, 10)).toBe(true)
  })
})

layer(TestServerLive({ libraryDir: root }).pipe(Layer.provide(Layer.succeed(BulkLoadMinFiles, 10))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("bulk loads of the search", (it) => {
  it.effect("a first scan drops the search indexes and builds them at its end; a small rescan keeps them", () =>
    Effect.gen(function* () {
      const before = yield* searchIndexes
      expect([...before.keys()]).toEqual(SEARCH_INDEXES)
      const first = yield* scanNow()
      expect(first.added).toBe(TRACKS)
      const after = yield* searchIndexes
      expect([...after.keys()]).toEqual(SEARCH_INDEXES)
      for (const name of SEARCH_INDEXES) expect(after.get(name)).not.toBe(before.get(name))
      const { title, found } = yield* searchOfFirstTitle
      expect(found).toContain(title)

      // Nothing to read: not a bulk load; the indexes stay the same ones.
      yield* scanNow()
      expect(yield* searchIndexes).toEqual(after)
    }),
  )

  it.effect("a bulk load waits at most 2 s for a reader holding the tables, then keeps the indexes up to date", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const before = yield* searchIndexes
      // A reader in a long transaction: the indexes cannot be dropped under it.
      const reader = yield* Effect.fork(
        Effect.gen(function* () {
          yield* sql`LOCK TABLE indexed_tracks IN ACCESS SHARE MODE`
          yield* Effect.sleep("4 seconds")
        }).pipe(sql.withTransaction),
      )
      yield* Effect.sleep("200 millis")
      const started = Date.now()
      const full = yield* scanNow(true)
      expect(full.filesSeen).toBe(TRACKS)
      yield* Fiber.join(reader)
      expect(Date.now() - started).toBeLessThan(8_000)
      expect(yield* searchIndexes).toEqual(before)
    }),
  )

  it.effect("two bulk loads at once (two libraries' first scans) build the search indexes once, neither fails", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const catalog = yield* CatalogRepository
      // Where two loads meet: both dropped the indexes, both build them at their end. Unserialised, the second
      // CREATE INDEX raced the first to the same name and failed its scan with an internal error.
      for (const name of SEARCH_INDEXES) yield* sql.unsafe(`DROP INDEX ${name}`)
      const built = yield* Effect.all(
        [catalog.ensureSearchIndexes, catalog.ensureSearchIndexes, catalog.ensureSearchIndexes],
        { concurrency: "unbounded" },
      )
      expect([...built].sort()).toEqual([0, 0, SEARCH_INDEXES.length])
      expect([...(yield* searchIndexes).keys()]).toEqual(SEARCH_INDEXES)
      // Two drops at once, then two builds: the same.
      expect(yield* Effect.all([catalog.dropSearchIndexes, catalog.dropSearchIndexes], { concurrency: 2 })).toEqual([
        true,
        true,
      ])
      expect((yield* searchIndexes).size).toBe(0)
      yield* Effect.all([catalog.ensureSearchIndexes, catalog.ensureSearchIndexes], { concurrency: 2 })
      expect([...(yield* searchIndexes).keys()]).toEqual(SEARCH_INDEXES)
    }).pipe(Effect.provide(CatalogRepository.Default)),
  )

  it.effect("a scan killed during a bulk load leaves its indexes to the next boot, which builds them", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Where a bulk load stops: its indexes dropped.
      for (const name of SEARCH_INDEXES) yield* sql.unsafe(`DROP INDEX ${name}`)
      expect((yield* searchIndexes).size).toBe(0)
      // The row of the killed process's scan.
      yield* sql`
        INSERT INTO scans (state, full_scan, started_at, files_seen, added)
        VALUES ('running', false, now() - interval '5 minutes', ${TRACKS}, 12)`
      const scans = yield* ScanService
      expect(yield* scans.closeInterrupted).toBe(1)
      expect([...(yield* searchIndexes).keys()]).toEqual(SEARCH_INDEXES)
    }),
  )
})
