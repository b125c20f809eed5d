import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { listenForever } from "../db/listen.js"

/** NOTIFY channel shared by every replica on the database. */
const CHANNEL = "tonearm_events"

/** The PostgreSQL channel events travel on: no table, just NOTIFY and LISTEN. */
export class EventRepository extends Effect.Service<EventRepository>()("@tonearm/server/EventRepository", {
  effect: Effect.gen(function* () {
    const pg = yield* PgClient.PgClient

    /** Sent with the caller's transaction when there is one, so a rolled-back change announces nothing. */
    const notify = (payload: string) => pg`SELECT pg_notify(${CHANNEL}, ${payload})`.pipe(Effect.asVoid)

    /**
     * Hands every payload sent on the channel, by any replica, to `handle`, for the life of the scope; reconnects
     * after a database outage and runs `onReconnected` then (events sent meanwhile were missed).
     */
    const listen = (handle: (payload: string) => Effect.Effect<void>, onReconnected: Effect.Effect<void>) =>
      Effect.provideService(listenForever(CHANNEL, "event", handle, onReconnected), PgClient.PgClient, pg)

    return { notify, listen } as const
  }),
}) {}
