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
    return { databaseAnswers } as const
  }),
}) {}
