import { SqlClient } from "@effect/sql"
import { ApiKeyId, UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export const ApiKeyRecord = Schema.Struct({
  id: ApiKeyId,
  user_id: UserId,
  name: Schema.String,
  created_at: Schema.DateTimeUtcFromDate,
  last_used_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
})

export const KeyOwnerRecord = Schema.Struct({
  id: ApiKeyId,
  last_used_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  user_id: UserId,
  username: Schema.String,
  is_admin: Schema.Boolean,
})

/** App passwords (encrypted) and API keys (hashed) of Subsonic apps. */
export class SubsonicCredentialsRepository extends Effect.Service<SubsonicCredentialsRepository>()(
  "@tonearm/server/SubsonicCredentialsRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /** One app password per user: a new one replaces the old. */
      const savePassword = (userId: UserId, ciphertext: Uint8Array, now: Date) =>
        sql`INSERT INTO subsonic_passwords (user_id, ciphertext, created_at) VALUES (${userId}, ${ciphertext}, ${now})
            ON CONFLICT (user_id) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, created_at = EXCLUDED.created_at`.pipe(
          Effect.asVoid,
          orInternal("SubsonicCredentialsRepository.savePassword"),
        )

      const passwordOf = (userId: UserId) =>
        sql<{ ciphertext: Uint8Array }>`SELECT ciphertext FROM subsonic_passwords WHERE user_id = ${userId}`.pipe(
          Effect.map((rows) => rows[0]?.ciphertext),
          orInternal("SubsonicCredentialsRepository.passwordOf"),
        )

      const insertKey = (userId: UserId, name: string, keyHash: Uint8Array, now: Date) =>
        sql`INSERT INTO subsonic_api_keys (user_id, name, key_hash, created_at)
            VALUES (${userId}, ${name}, ${keyHash}, ${now}) RETURNING id, user_id, name, created_at, last_used_at`.pipe(
          Effect.flatMap((rows) => Schema.decodeUnknown(ApiKeyRecord)(rows[0])),
          orInternal("SubsonicCredentialsRepository.insertKey"),
        )

      const keysOf = (userId: UserId) =>
        sql`SELECT id, user_id, name, created_at, last_used_at FROM subsonic_api_keys WHERE user_id = ${userId}
            ORDER BY created_at, id`.pipe(
          Effect.flatMap(decodeRows(ApiKeyRecord)),
          orInternal("SubsonicCredentialsRepository.keysOf"),
        )

      /** Deletes the caller's own key; false when there is no such key of theirs. */
      const deleteKey = (userId: UserId, id: ApiKeyId) =>
        sql<{ id: string }>`DELETE FROM subsonic_api_keys WHERE id = ${id} AND user_id = ${userId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          orInternal("SubsonicCredentialsRepository.deleteKey"),
        )

      /** The key and its owner in one read: API-key auth runs on every request of an app. */
      const keyOwner = (keyHash: Uint8Array) =>
        sql`SELECT k.id, k.last_used_at, u.id AS user_id, u.username, u.is_admin
            FROM subsonic_api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ${keyHash}`.pipe(
          Effect.flatMap(decodeFirst(KeyOwnerRecord)),
          orInternal("SubsonicCredentialsRepository.keyOwner"),
        )

      const touchKey = (id: ApiKeyId, now: Date) =>
        sql`UPDATE subsonic_api_keys SET last_used_at = ${now} WHERE id = ${id}`.pipe(
          Effect.asVoid,
          orInternal("SubsonicCredentialsRepository.touchKey"),
        )

      return { savePassword, passwordOf, insertKey, keysOf, deleteKey, keyOwner, touchKey } as const
    }),
  },
) {}
