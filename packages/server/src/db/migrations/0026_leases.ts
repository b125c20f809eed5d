import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Replicas (issue 30 item 1). `leases`: which process runs each background duty (the scan, the watcher,
 * enrichment, the reconciler, …) until `expires_at`, renewed by its holder's heartbeat; another process takes a
 * lease whose time ran out. A row, not a session advisory lock: it survives PgBouncer's transaction mode, where a
 * session lock lands on whichever server connection ran the statement. Written only by `leases/LeaseRepository.ts`.
 *
 * `provider_throttles`: the next time each external provider (MusicBrainz, Last.fm, …) may be asked, shared by every
 * replica, so two replicas together keep MusicBrainz's one request a second. Written only by
 * `enrichment/ProviderThrottleRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE leases (
      name text PRIMARY KEY,
      holder text NOT NULL,
      generation bigint NOT NULL DEFAULT 1,
      acquired_at timestamptz NOT NULL,
      renewed_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE provider_throttles (
      provider text PRIMARY KEY,
      next_at timestamptz NOT NULL
    )`
})
