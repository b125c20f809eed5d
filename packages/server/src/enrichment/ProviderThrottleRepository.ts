import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/**
 * `provider_throttles`: the next time each external provider may be asked, one row per provider shared by every
 * replica (issue 30: two replicas together keep MusicBrainz's one request a second).
 */
export class ProviderThrottleRepository extends Effect.Service<ProviderThrottleRepository>()(
  "@tonearm/server/ProviderThrottleRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /**
       * Takes the provider's next request slot and answers how many milliseconds to wait for it: core's
       * `nextRequestSlot` (a start at least `intervalMs` after the previous start, never before now) in one
       * statement, so replicas asking at once queue on the row and get distinct slots. Times are the database's,
       * the one clock every replica shares.
       */
      const takeSlot = (provider: string, intervalMs: number) =>
        sql<{ wait_ms: number }>`
          INSERT INTO provider_throttles (provider, next_at)
          VALUES (${provider}, clock_timestamp() + ${intervalMs}::int * interval '1 millisecond')
          ON CONFLICT (provider) DO UPDATE
            SET next_at = GREATEST(provider_throttles.next_at, clock_timestamp()) + ${intervalMs}::int * interval '1 millisecond'
          RETURNING GREATEST(0, EXTRACT(EPOCH FROM (next_at - clock_timestamp())) * 1000 - ${intervalMs}::int)::float8
            AS wait_ms`.pipe(
          Effect.map((rows) => Math.ceil(Number(rows[0]?.wait_ms ?? 0))),
          orInternal("ProviderThrottleRepository.takeSlot"),
        )

      return { takeSlot } as const
    }),
  },
) {}
