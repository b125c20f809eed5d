import { SqlClient } from "@effect/sql"
import { Snooze, type UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** A stored snooze row: pg hands back a `Date`. */
const SnoozeRow = Schema.Struct({ ...Snooze.fields, snoozed_until: Schema.DateTimeUtcFromDate })

/** `discover_snoozes`: one row per (user, candidate), the end of the snooze moved by a repeated snooze. */
export class SnoozeRepository extends Effect.Service<SnoozeRepository>()("@tonearm/server/SnoozeRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Parks the candidate until `until`; a second snooze of the same candidate moves the end and the name. */
    const upsert = (user: UserId, mbid: string, name: string, until: Date, now: Date) =>
      sql`
        INSERT INTO discover_snoozes (user_id, candidate_mbid, candidate_name, snoozed_until, created_at)
        VALUES (${user}, ${mbid}, ${name}, ${until}, ${now})
        ON CONFLICT (user_id, candidate_mbid) DO UPDATE
          SET candidate_name = EXCLUDED.candidate_name, snoozed_until = EXCLUDED.snoozed_until
        RETURNING candidate_mbid, candidate_name, snoozed_until`.pipe(
        Effect.flatMap(decodeRows(SnoozeRow)),
        Effect.map((rows) => new Snooze(rows[0]!)),
        orInternal("SnoozeRepository.upsert"),
      )

    const remove = (user: UserId, mbid: string) =>
      sql`DELETE FROM discover_snoozes WHERE user_id = ${user} AND candidate_mbid = ${mbid}`.pipe(
        Effect.asVoid,
        orInternal("SnoozeRepository.remove"),
      )

    /** The user's snoozes still running at `now`, the soonest to end first. */
    const active = (user: UserId, now: Date) =>
      sql`
        SELECT candidate_mbid, candidate_name, snoozed_until FROM discover_snoozes
        WHERE user_id = ${user} AND snoozed_until > ${now}
        ORDER BY snoozed_until, candidate_mbid`.pipe(
        Effect.flatMap(decodeRows(SnoozeRow)),
        Effect.map((rows) => rows.map((row) => new Snooze(row))),
        orInternal("SnoozeRepository.active"),
      )

    return { upsert, remove, active } as const
  }),
}) {}
