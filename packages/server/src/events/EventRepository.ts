import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"

/** NOTIFY channel shared by every replica on the database. */
const CHANNEL = "tonearm_events"

/** The PostgreSQL channel events travel on: no table, just NOTIFY and LISTEN. */
export class EventRepository extends Effect.Service<EventRepository>()("@tonearm/server/EventRepository", {
  effect: Effect.gen(function* () {
    const pg = yield* PgClient.PgClient

    /** Sent with the caller's transaction when there is one, so a rolled-back change announces nothing. */
    const notify = (payload: string) => pg`SELECT pg_notify(${CHANNEL}, ${payload})`.pipe(Effect.asVoid)

    /** Every payload sent on the channel, by any replica, from now on. */
    const listen = pg.listen(CHANNEL)

    return { notify, listen } as const
  }),
}) {}
