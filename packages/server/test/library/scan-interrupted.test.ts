import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { ScanService } from "../../src/library/index.js"
import { INTERRUPTED_MESSAGE } from "../../src/library/ScanService.js"
import { Admin, AdminLive, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 4: a scan a killed process left `running` (its row written, its lock gone with its connection) is
 * closed at the next boot as failed, "interrupted"; one that a live replica is running (the lock held) is left alone;
 * what the dead scan indexed stays.
 */
const { root } = await fixtureLibrary()

const counts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ tracks: number; running: number }>`
      SELECT (SELECT count(*)::int FROM tracks) AS tracks,
        (SELECT count(*)::int FROM scans WHERE state = 'running') AS running`,
    (rows) => rows[0]!,
  ),
)

/** The row a process killed mid-scan leaves behind. */
const abandonedScan = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ id: string }>`
      INSERT INTO scans (state, full_scan, started_at, files_seen, added)
      VALUES ('running', false, now() - interval '5 minutes', 40, 12) RETURNING id`,
    (rows) => rows[0]!.id,
  ),
)

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
})("interrupted scans", (it) => {
  it.scoped(
    "a scan left running by a dead process is closed at boot as failed, interrupted; nothing indexed is lost",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const admin = yield* Admin
        const before = yield* counts
        const id = yield* abandonedScan
        // Another database on the same cluster scanning (its own scan lock: advisory locks are per database) does
        // not make ours look busy.
        const elsewhere = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
        yield* Effect.acquireRelease(
          Effect.promise(async () => {
            await elsewhere.connect()
            await elsewhere.query("SELECT pg_advisory_lock(hashtext('tonearm.scan'))")
          }),
          () => Effect.promise(() => elsewhere.end()),
        )
        expect((yield* admin.client.scan.status()).state).toBe("failed")

        expect(yield* (yield* ScanService).closeInterrupted).toBe(1)
        const [row] = yield* sql<{ state: string; message: string; finished_at: Date | null; added: number }>`
        SELECT state, message, finished_at, added FROM scans WHERE id = ${id}`
        expect(row).toMatchObject({ state: "failed", message: INTERRUPTED_MESSAGE, added: 12 })
        expect(row!.finished_at).not.toBeNull()
        const status = yield* admin.client.scan.status()
        expect(status).toMatchObject({ state: "failed", message: INTERRUPTED_MESSAGE })
        expect(yield* counts).toEqual({ tracks: before.tracks, running: 0 })
        // Nothing left to close the next time.
        expect(yield* (yield* ScanService).closeInterrupted).toBe(0)
      }),
  )

  it.effect("a scan another replica is running (it holds the scan lock) is left running", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const id = yield* abandonedScan
        // The other replica: the scan lock held on its own connection for this scope.
        const replica = yield* sql.reserve
        yield* replica.execute("SELECT pg_advisory_lock(hashtext('tonearm.scan'))", [], undefined)
        expect(yield* (yield* ScanService).closeInterrupted).toBe(0)
        const [row] = yield* sql<{ state: string }>`SELECT state FROM scans WHERE id = ${id}`
        expect(row!.state).toBe("running")
        yield* replica.execute("SELECT pg_advisory_unlock(hashtext('tonearm.scan'))", [], undefined)
        expect(yield* (yield* ScanService).closeInterrupted).toBe(1)
      }),
    ),
  )
})
