import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** A lease as stored: who holds it, since when, until when (by the database's clock). */
export const LeaseRecord = Schema.Struct({
  name: Schema.String,
  holder: Schema.String,
  generation: Schema.NumberFromString,
  acquired_at: Schema.DateTimeUtcFromDate,
  renewed_at: Schema.DateTimeUtcFromDate,
  expires_at: Schema.DateTimeUtcFromDate,
  live: Schema.Boolean,
})
export type LeaseRecord = typeof LeaseRecord.Type

const Taken = Schema.Struct({
  generation: Schema.NumberFromString,
  previous: Schema.NullOr(Schema.String),
})

/**
 * The `leases` table: one row per background duty. Every time is the database's (`clock_timestamp()`), so
 * replicas whose clocks disagree still agree on when a lease ran out. Each statement stands alone (no session
 * state), so it works the same through PgBouncer's transaction mode.
 */
export class LeaseRepository extends Effect.Service<LeaseRepository>()("@tonearm/server/LeaseRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Takes `name` for `holder` for `ttlMs` when nobody holds it or its holder's time ran out (two replicas asking
     * at once: PostgreSQL re-checks the condition on the row the first one wrote, so one wins). Answers the new
     * generation and who held it before, or None when it is held.
     */
    const acquire = (name: string, holder: string, ttlMs: number) =>
      sql`
        WITH before AS (SELECT holder FROM leases WHERE name = ${name}),
        taken AS (
          INSERT INTO leases (name, holder, generation, acquired_at, renewed_at, expires_at)
          VALUES (${name}, ${holder}, 1, clock_timestamp(), clock_timestamp(),
            clock_timestamp() + ${ttlMs}::int * interval '1 millisecond')
          ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, generation = leases.generation + 1,
            acquired_at = EXCLUDED.acquired_at, renewed_at = EXCLUDED.renewed_at, expires_at = EXCLUDED.expires_at
          WHERE leases.expires_at <= clock_timestamp()
          RETURNING generation)
        SELECT t.generation, b.holder AS previous FROM taken t LEFT JOIN before b ON true`.pipe(
        Effect.flatMap(decodeRows(Taken)),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        orInternal("LeaseRepository.acquire"),
      )

    /** Moves the lease's end `ttlMs` ahead; false when it is no longer this holder's (taken over after it ran out). */
    const renew = (name: string, holder: string, generation: number, ttlMs: number) =>
      sql`
        UPDATE leases SET renewed_at = clock_timestamp(),
          expires_at = clock_timestamp() + ${ttlMs}::int * interval '1 millisecond'
        WHERE name = ${name} AND holder = ${holder} AND generation = ${generation}
        RETURNING 1 AS kept`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("LeaseRepository.renew"),
      )

    /** Ends the lease now (another replica may take it at once); the row stays as the last holder's record. */
    const release = (name: string, holder: string, generation: number) =>
      sql`
        UPDATE leases SET expires_at = clock_timestamp()
        WHERE name = ${name} AND holder = ${holder} AND generation = ${generation}`.pipe(
        Effect.asVoid,
        orInternal("LeaseRepository.release"),
      )

    /** Whether someone holds `name` now. */
    const held = (name: string) =>
      sql<{ held: boolean }>`
        SELECT EXISTS (SELECT 1 FROM leases WHERE name = ${name} AND expires_at > clock_timestamp()) AS held`.pipe(
        Effect.map((rows) => rows[0]?.held === true),
        orInternal("LeaseRepository.held"),
      )

    /** Every lease, live or not, by name. */
    const list = sql`
      SELECT name, holder, generation, acquired_at, renewed_at, expires_at, expires_at > clock_timestamp() AS live
      FROM leases ORDER BY name`.pipe(Effect.flatMap(decodeRows(LeaseRecord)), orInternal("LeaseRepository.list"))

    return { acquire, renew, release, held, list } as const
  }),
}) {}
