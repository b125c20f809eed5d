import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { Leases } from "../../src/leases/index.js"
import { ScanService } from "../../src/library/index.js"
import { BootScanLive, INTERRUPTED_MESSAGE } from "../../src/library/ScanService.js"
import { Admin, AdminLive, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 4: a scan a killed process left `running` (its row written, its lease run out) is closed at the next
 * boot as failed, "interrupted"; one that a live replica is running (its lease renewed) is left alone; what the dead
 * scan indexed stays.
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
        // The dead process's scan lease: renewed no more, it ran out (a lease still running is the next test's).
        yield* sql`
          INSERT INTO leases (name, holder, acquired_at, renewed_at, expires_at)
          VALUES ('scan:1', 'gone:1:000000', now() - interval '5 minutes', now() - interval '1 minute',
            now() - interval '40 seconds')
          ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`
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

  it.effect("a scan another replica is running (it holds the scan lease) is left running", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const id = yield* abandonedScan
      // The other replica: its scan lease renewed a moment ago.
      yield* sql`
        INSERT INTO leases (name, holder, acquired_at, renewed_at, expires_at)
        VALUES ('scan:1', 'other:2:000000', now(), now(), now() + interval '1 minute')
        ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`
      expect(yield* (yield* ScanService).closeInterrupted).toBe(0)
      expect((yield* (yield* ScanService).status).state).toBe("running")
      const [row] = yield* sql<{ state: string }>`SELECT state FROM scans WHERE id = ${id}`
      expect(row!.state).toBe("running")
      // Its scan ended (the lease let go): the row is closed at the next boot.
      yield* sql`UPDATE leases SET expires_at = now() WHERE name = 'scan:1'`
      expect(yield* (yield* ScanService).closeInterrupted).toBe(1)
    }),
  )
  it.scoped("restarted before a dead scan's lease ran out: the boot closes that scan once the lease has run out", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const id = yield* abandonedScan
      // The killed process's scan lease, renewed just before it died; it runs out in a second.
      yield* sql`
        INSERT INTO leases (name, holder, acquired_at, renewed_at, expires_at)
        VALUES ('scan:1', 'gone:9:000000', now(), now(), now() + interval '1 second')
        ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`
      // The restarted process's boot, with a 1 s lease time (its own scan service and leases).
      yield* Layer.build(
        BootScanLive.pipe(Layer.provide(Layer.mergeAll(Layer.fresh(ScanService.Default), Layer.fresh(Leases.Default)))),
      ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["TONEARM_LEASE_TTL_MS", "1000"]]))))
      const stateOf = sql<{ state: string }>`SELECT state FROM scans WHERE id = ${id}`.pipe(
        Effect.map((rows) => rows[0]!.state),
      )
      expect(yield* stateOf).toBe("running")
      // Looked at again after the lease time (1.25 s): the lease ran out, the scan is closed.
      yield* Effect.sleep("2 seconds")
      expect(yield* stateOf).toBe("failed")
    }),
  )
})
