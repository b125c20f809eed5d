import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok", "degraded"),
  database: Schema.Boolean,
  version: Schema.String,
}) {}

export class Readiness extends Schema.Class<Readiness>("Readiness")({
  status: Schema.Literal("ready", "not_ready"),
  /** The database answers a trivial query within two seconds. */
  database: Schema.Boolean,
  /** Every migration this version knows is applied (a replica newer than the schema is not ready). */
  migrations: Schema.Boolean,
  version: Schema.String,
}) {}

/** The port a server listens on unless told otherwise (Navidrome's, so existing proxy rules keep working). */
export const DEFAULT_PORT = 4533

/**
 * Liveness for operators and load balancers: no auth; 503 when the database does not answer. Readiness
 * (`/readyz`): 200 once the database answers and its migrations are applied, else 503 (a proxy sends no traffic).
 */
export class SystemApi extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("health", "/healthz").addSuccess(Health).addSuccess(Health, { status: 503 }))
  .add(HttpApiEndpoint.get("ready", "/readyz").addSuccess(Readiness).addSuccess(Readiness, { status: 503 }))
  .annotate(OpenApi.Title, "System") {}
