import { SqlClient } from "@effect/sql"
import { AcquisitionRequest, type RequestKind, type RequestStatus, type UserId } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { catalogueIn, type LibraryScope } from "../db/libraryScope.js"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** A stored request: pg hands back `Date`s. */
const RequestRow = Schema.Struct({
  ...AcquisitionRequest.fields,
  created_at: Schema.DateTimeUtcFromDate,
  decided_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  manager_add_confirmed_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
})

const COLUMNS =
  "id, user_id, kind, mbid, name, status, created_at, decided_at, decided_by, manager_add_confirmed_at, reason"

const toRequest = (row: typeof RequestRow.Type) => new AcquisitionRequest(row)

/**
 * `acquisition_requests`. The partial unique index on open requests' MBIDs makes "no duplicate" hold under
 * concurrency: an insert that meets an open request inserts nothing and the open row is read back.
 */
export class RequestsRepository extends Effect.Service<RequestsRepository>()("@tonearm/server/RequestsRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const many = decodeRows(RequestRow)
    const one = decodeFirst(RequestRow)

    /** The new row, or None when an open request for the MBID exists. */
    const insert = (user: UserId, kind: RequestKind, mbid: string, name: string, now: Date) =>
      sql`
        INSERT INTO acquisition_requests (user_id, kind, mbid, name, status, created_at)
        VALUES (${user}, ${kind}, ${mbid}, ${name}, 'pending', ${now})
        ON CONFLICT (mbid) WHERE status IN ('pending', 'approved') DO NOTHING
        RETURNING ${sql.unsafe(COLUMNS)}`.pipe(
        Effect.flatMap(one),
        Effect.map(Option.map(toRequest)),
        orInternal("RequestsRepository.insert"),
      )

    const openFor = (mbid: string) =>
      sql`
        SELECT ${sql.unsafe(COLUMNS)} FROM acquisition_requests
        WHERE mbid = ${mbid} AND status IN ('pending', 'approved')`.pipe(
        Effect.flatMap(one),
        Effect.map((found) => (found._tag === "Some" ? toRequest(found.value) : undefined)),
        orInternal("RequestsRepository.openFor"),
      )

    const byId = (id: string) =>
      sql`SELECT ${sql.unsafe(COLUMNS)} FROM acquisition_requests WHERE id = ${id}`.pipe(
        Effect.flatMap(one),
        Effect.map((found) => (found._tag === "Some" ? toRequest(found.value) : undefined)),
        orInternal("RequestsRepository.byId"),
      )

    const ofUser = (user: UserId) =>
      sql`
        SELECT ${sql.unsafe(COLUMNS)} FROM acquisition_requests WHERE user_id = ${user}
        ORDER BY created_at DESC, id`.pipe(
        Effect.flatMap(many),
        Effect.map((rows) => rows.map(toRequest)),
        orInternal("RequestsRepository.ofUser"),
      )

    const all = (status: RequestStatus | undefined) =>
      (status === undefined
        ? sql`SELECT ${sql.unsafe(COLUMNS)} FROM acquisition_requests ORDER BY created_at DESC, id LIMIT 1000`
        : sql`SELECT ${sql.unsafe(COLUMNS)} FROM acquisition_requests WHERE status = ${status}
              ORDER BY created_at DESC, id LIMIT 1000`
      ).pipe(
        Effect.flatMap(many),
        Effect.map((rows) => rows.map(toRequest)),
        orInternal("RequestsRepository.all"),
      )

    /** Moves a request from one of `from` to `to`; None when it was not in one of them (it stays as it was). */
    const transition = (
      id: string,
      from: ReadonlyArray<RequestStatus>,
      to: RequestStatus,
      decision: { readonly by: UserId | null; readonly at: Date; readonly reason?: string | null } | undefined,
    ) =>
      (decision === undefined
        ? sql`
            UPDATE acquisition_requests SET status = ${to}
            WHERE id = ${id} AND status = ANY(${from as Array<string>}::text[])
            RETURNING ${sql.unsafe(COLUMNS)}`
        : sql`
            UPDATE acquisition_requests SET status = ${to}, decided_at = ${decision.at}, decided_by = ${decision.by},
                   reason = COALESCE(${decision.reason ?? null}, reason)
            WHERE id = ${id} AND status = ANY(${from as Array<string>}::text[])
            RETURNING ${sql.unsafe(COLUMNS)}`
      ).pipe(
        Effect.flatMap(one),
        Effect.map((found) => (found._tag === "Some" ? toRequest(found.value) : undefined)),
        orInternal("RequestsRepository.transition"),
      )

    /**
     * Locks one approved, unconfirmed request for an add. `skip`: a request another replica (or the reconciler) is
     * adding is left alone (SKIP LOCKED); `wait`: its add is waited for, and the request is answered only if it is
     * still unconfirmed then (an approve answers with the outcome of an add). Call inside a transaction.
     */
    const lockUnconfirmed = (id: string, busy: "skip" | "wait") =>
      sql`
        SELECT ${sql.unsafe(COLUMNS)} FROM acquisition_requests
        WHERE id = ${id} AND status = 'approved' AND manager_add_confirmed_at IS NULL
        FOR UPDATE ${sql.unsafe(busy === "skip" ? "SKIP LOCKED" : "")}`.pipe(
        Effect.flatMap(one),
        Effect.map((found) => (found._tag === "Some" ? toRequest(found.value) : undefined)),
        orInternal("RequestsRepository.lockUnconfirmed"),
      )

    /** Approved requests the manager has not confirmed, least recently tried first. */
    const unconfirmed = (limit: number) =>
      sql<{ id: string }>`
        SELECT id FROM acquisition_requests
        WHERE status = 'approved' AND manager_add_confirmed_at IS NULL
        ORDER BY manager_last_attempt_at NULLS FIRST, created_at LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("RequestsRepository.unconfirmed"),
      )

    const confirmed = (id: string, now: Date) =>
      sql`
        UPDATE acquisition_requests SET manager_add_confirmed_at = ${now}, manager_attempts = manager_attempts + 1,
               manager_last_attempt_at = ${now}, manager_last_error = NULL
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("RequestsRepository.confirmed"))

    const attemptFailed = (id: string, now: Date, error: string) =>
      sql`
        UPDATE acquisition_requests SET manager_attempts = manager_attempts + 1, manager_last_attempt_at = ${now},
               manager_last_error = ${error.slice(0, 500)}
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("RequestsRepository.attemptFailed"))

    /** The users with approved requests still waiting for the library. */
    const waitingRequesters = sql<{ user_id: UserId }>`
      SELECT DISTINCT user_id FROM acquisition_requests WHERE status = 'approved'`.pipe(
      Effect.map((rows) => rows.map((row) => row.user_id)),
      orInternal("RequestsRepository.waitingRequesters"),
    )

    /**
     * A user's approved requests that the libraries they hear (`scope`) now hold, found by a scan by MusicBrainz id,
     * become available.
     */
    const markAvailable = (user: UserId, scope: LibraryScope) => {
      const c = catalogueIn(sql, scope)
      return sql`
        UPDATE acquisition_requests r SET status = 'available'
        WHERE r.user_id = ${user} AND r.status = 'approved'
          AND ((r.kind = 'artist' AND EXISTS (SELECT 1 FROM ${c.artists} a WHERE a.mbid = r.mbid))
            OR (r.kind = 'album' AND EXISTS (SELECT 1 FROM ${c.albums} a WHERE a.mbid = r.mbid)))
        RETURNING ${sql.unsafe(COLUMNS)}`.pipe(
        Effect.flatMap(many),
        Effect.map((rows) => rows.map(toRequest)),
        orInternal("RequestsRepository.markAvailable"),
      )
    }

    return {
      insert,
      openFor,
      byId,
      ofUser,
      all,
      transition,
      lockUnconfirmed,
      unconfirmed,
      confirmed,
      attemptFailed,
      waitingRequesters,
      markAvailable,
    } as const
  }),
}) {}
