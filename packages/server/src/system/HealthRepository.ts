import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class HealthRepository extends Effect.Service<HealthRepository>()("@tonearm/server/HealthRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** True when the database answers a trivial query within two seconds. */
    const databaseAnswers = sql`SELECT 1`.pipe(
      Effect.disconnect,
      Effect.as(true),
      Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "timeout" }),
      Effect.catchAllCause((cause) =>
        Effect.logWarning("health check: database unavailable", cause).pipe(Effect.as(false)),
      ),
    )
    /** The newest migration id applied to the database (0 when none), or undefined when it does not answer. */
    const latestMigration = sql<{ latest: number }>`
      SELECT coalesce(max(migration_id), 0)::int AS latest FROM effect_sql_migrations`.pipe(
      Effect.map((rows) => rows[0]?.latest ?? 0),
      Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "timeout" }),
      Effect.catchAllCause((cause) =>
        Effect.logWarning("readiness check: migrations unreadable", cause).pipe(Effect.as(undefined)),
      ),
    )
    return { databaseAnswers, latestMigration } as const
  }),
}) {}
