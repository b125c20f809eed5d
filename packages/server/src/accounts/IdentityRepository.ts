import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** OpenID Connect subjects linked to accounts (`external_identities`). */
export class IdentityRepository extends Effect.Service<IdentityRepository>()("@tonearm/server/IdentityRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const userOf = (issuer: string, subject: string) =>
      sql<{ user_id: UserId }>`
        SELECT user_id FROM external_identities WHERE issuer = ${issuer} AND subject = ${subject}`.pipe(
        Effect.map((rows) => rows[0]?.user_id),
        orInternal("IdentityRepository.userOf"),
      )

    /** Links once; a concurrent first login of the same subject keeps the first link. */
    const link = (issuer: string, subject: string, userId: UserId, now: Date) =>
      sql`
        INSERT INTO external_identities (issuer, subject, user_id, created_at)
        VALUES (${issuer}, ${subject}, ${userId}, ${now})
        ON CONFLICT (issuer, subject) DO NOTHING`.pipe(Effect.asVoid, orInternal("IdentityRepository.link"))

    /** An account whose email is this one, regardless of letter case. */
    const userByEmail = (email: string) =>
      sql<{ id: UserId }>`SELECT id FROM users WHERE lower(email) = lower(${email})`.pipe(
        Effect.map((rows) => rows[0]?.id),
        orInternal("IdentityRepository.userByEmail"),
      )

    return { userOf, link, userByEmail } as const
  }),
}) {}
