import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ChangeLogRepository } from "../../src/changes/ChangeLogRepository.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const SHARED = "00000000-0000-0000-0000-000000000000"
const USER = "11111111-1111-1111-1111-111111111111"

/** How often an index of library_changes was scanned, as the statistics collector last reported it. */
const scansOf = (index: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT pg_stat_clear_snapshot()`
    const rows = yield* sql<{ scans: string }>`
      SELECT idx_scan::text AS scans FROM pg_stat_user_indexes WHERE indexrelname = ${index}`
    return Number(rows[0]?.scans ?? 0)
  })

layer(TestDatabaseLive, { excludeTestServices: true })("library version (migration 0014)", (it) => {
  it.effect(
    "the library version is the latest shared change, read from the shared changes' index even when the statistics say every change is shared",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const now = new Date()
        // A scan's changes, analysed: every change is shared as far as the planner knows.
        yield* sql`
          INSERT INTO library_changes (entity, entity_id, scope, operation, seq, changed_at)
          SELECT 'track', g::text, ${SHARED}::uuid, 'upsert', nextval('library_change_seq'), ${now}
          FROM generate_series(1, 200) g`
        yield* sql`ANALYZE library_changes`
        const [shared] = yield* sql<{ seq: string }>`
          SELECT max(seq)::text AS seq FROM library_changes WHERE scope = ${SHARED}::uuid`
        // Then a nightly run's worth of one user's changes, newer than every shared one, before any ANALYZE.
        yield* sql`
          INSERT INTO library_changes (entity, entity_id, scope, operation, seq, changed_at)
          SELECT 'playlist_track', g::text, ${USER}::uuid, 'upsert', nextval('library_change_seq'), ${now}
          FROM generate_series(1, 20000) g`
        const before = yield* scansOf("library_changes_shared_seq_idx")
        const walkedBefore = yield* scansOf("library_changes_seq_key")
        const changes = yield* ChangeLogRepository
        for (let read = 0; read < 10; read++) expect(yield* changes.libraryVersion).toBe(shared!.seq)
        // The statistics arrive within a second or so of the reads.
        let after = before
        for (let attempt = 0; attempt < 50 && after < before + 10; attempt++) {
          yield* Effect.sleep("100 millis")
          after = yield* scansOf("library_changes_shared_seq_idx")
        }
        expect(after).toBeGreaterThanOrEqual(before + 10)
        // No read walked back through the user's 20,000 newer changes on the sequence's index.
        expect(yield* scansOf("library_changes_seq_key")).toBe(walkedBefore)
      }).pipe(Effect.provide(ChangeLogRepository.Default)),
  )
})
