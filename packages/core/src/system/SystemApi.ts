import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok", "degraded"),
  database: Schema.Boolean,
  version: Schema.String,
}) {}

/** The port a server listens on unless told otherwise (Navidrome's, so existing proxy rules keep working). */
export const DEFAULT_PORT = 4533

/** Liveness for operators and load balancers: no auth; 503 when the database does not answer. */
export class SystemApi extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("health", "/healthz").addSuccess(Health).addSuccess(Health, { status: 503 }))
  .annotate(OpenApi.Title, "System") {}
