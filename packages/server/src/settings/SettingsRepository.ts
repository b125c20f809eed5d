import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** Operator settings that change at runtime, shared by every replica: one JSON value per key. */
export class SettingsRepository extends Effect.Service<SettingsRepository>()("@tonearm/server/SettingsRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Fails with the raw storage error, so a caller can decide that unreadable means "use the default". */
    const read = (key: string) =>
      sql<{ value: unknown }>`SELECT value FROM settings WHERE key = ${key}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map((row) => row.value))),
      )

    const write = (key: string, value: unknown, now: Date) =>
      sql`
        INSERT INTO settings (key, value, updated_at) VALUES (${key}, ${JSON.stringify(value)}::jsonb, ${now})
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`.pipe(
        Effect.asVoid,
        orInternal("SettingsRepository.write"),
      )

    return { read, write } as const
  }),
}) {}
