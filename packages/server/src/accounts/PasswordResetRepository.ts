import { SqlClient } from "@effect/sql"
import { UserId } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { orInternal } from "../db/sqlErrors.js"

export class PasswordResetRepository extends Effect.Service<PasswordResetRepository>()(
  "@tonearm/server/PasswordResetRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      const insert = (input: {
        readonly tokenHash: Buffer
        readonly userId: UserId
        readonly now: Date
        readonly expiresAt: Date
      }) =>
        sql`
          INSERT INTO password_resets (token_hash, user_id, created_at, expires_at)
          VALUES (${input.tokenHash}, ${input.userId}, ${input.now}, ${input.expiresAt})`.pipe(
          Effect.asVoid,
          orInternal("PasswordResetRepository.insert"),
        )

      /** Marks the token used and returns its user, only when it is unused and unexpired (single use). */
      const consume = (tokenHash: Buffer, now: Date) =>
        sql<{ user_id: string }>`
          UPDATE password_resets SET used_at = ${now}
          WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}
          RETURNING user_id`.pipe(
          Effect.flatMap((rows) =>
            rows[0] === undefined
              ? Effect.succeedNone
              : Effect.map(Schema.decodeUnknown(UserId)(rows[0].user_id), Option.some),
          ),
          orInternal("PasswordResetRepository.consume"),
        )

      /** Every unused link of the user stops working (a reset or a password change happened: issue 29). */
      const revokeAllFor = (userId: UserId, now: Date) =>
        sql`UPDATE password_resets SET used_at = ${now} WHERE user_id = ${userId} AND used_at IS NULL`.pipe(
          Effect.asVoid,
          orInternal("PasswordResetRepository.revokeAllFor"),
        )

      /** Drops tokens that can no longer be used, so the table stays small. */
      const prune = (now: Date) =>
        sql`DELETE FROM password_resets WHERE expires_at <= ${now} OR used_at IS NOT NULL`.pipe(
          Effect.asVoid,
          orInternal("PasswordResetRepository.prune"),
        )

      return { insert, consume, revokeAllFor, prune } as const
    }),
  },
) {}
