import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** The `client_downloads` table's only writer: when each user last started an installer download. */
export class ClientDownloadRepository extends Effect.Service<ClientDownloadRepository>()(
  "@tonearm/server/ClientDownloadRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /**
       * Starts a download window for the user when their last one started at or before `windowStart`, in one
       * statement (two replicas can't both grant it). Answers undefined when granted, else when the current
       * window started.
       */
      const claim = (userId: UserId, now: Date, windowStart: Date) =>
        Effect.gen(function* () {
          const granted = yield* sql<{ started_at: Date }>`
            INSERT INTO client_downloads (user_id, started_at) VALUES (${userId}, ${now})
            ON CONFLICT (user_id) DO UPDATE SET started_at = EXCLUDED.started_at
            WHERE client_downloads.started_at <= ${windowStart}
            RETURNING started_at`
          if (granted.length > 0) return undefined
          const current = yield* sql<{ started_at: Date }>`
            SELECT started_at FROM client_downloads WHERE user_id = ${userId}`
          return current[0]?.started_at ?? now
        }).pipe(orInternal("ClientDownloadRepository.claim"))

      return { claim } as const
    }),
  },
) {}
