import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { DIAGNOSTIC_KINDS, PLAYBACK_ERROR_KINDS, PLAYBACK_ERROR_RESOLUTIONS, QUARANTINE_ACTIONS } from "@tonearm/core"
import { Effect } from "effect"
import { TestDatabaseLive } from "../support/TestDatabase.js"

layer(TestDatabaseLive)("migration 0008: moderation, diagnostics and the installer window", (it) => {
  it.effect("each new enum is a named CHECK holding exactly the contract's values (widened by a later migration)", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const checks = yield* sql<{ conname: string; definition: string }>`
        SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
        WHERE conname IN ('quarantine_action_check', 'playback_errors_kind_check',
                          'playback_errors_resolution_check', 'diagnostic_events_kind_check')`
      const valuesOf = (name: string) => {
        const definition = checks.find((row) => row.conname === name)?.definition ?? ""
        return [...definition.matchAll(/'([a-z_]+)'::text/g)].map((match) => match[1]).sort()
      }
      expect(valuesOf("quarantine_action_check")).toEqual([...QUARANTINE_ACTIONS].sort())
      expect(valuesOf("playback_errors_kind_check")).toEqual([...PLAYBACK_ERROR_KINDS].sort())
      expect(valuesOf("playback_errors_resolution_check")).toEqual([...PLAYBACK_ERROR_RESOLUTIONS].sort())
      expect(valuesOf("diagnostic_events_kind_check")).toEqual([...DIAGNOSTIC_KINDS].sort())
    }),
  )

  it.effect("new foreign keys reference indexed_tracks (never the tracks view) and users", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const keys = yield* sql<{ from_table: string; to_table: string }>`
        SELECT DISTINCT conrelid::regclass::text AS from_table, confrelid::regclass::text AS to_table
        FROM pg_constraint
        WHERE contype = 'f'
          AND conrelid::regclass::text IN ('quarantine', 'playback_errors', 'diagnostic_events', 'client_downloads')
        ORDER BY 1, 2`
      expect(keys).toEqual([
        { from_table: "client_downloads", to_table: "users" },
        { from_table: "diagnostic_events", to_table: "users" },
        { from_table: "playback_errors", to_table: "indexed_tracks" },
        { from_table: "playback_errors", to_table: "users" },
        { from_table: "quarantine", to_table: "indexed_tracks" },
        { from_table: "quarantine", to_table: "users" },
      ])
    }),
  )
})
