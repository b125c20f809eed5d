import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AdminAuthentication } from "../http/Authentication.js"
import { MAX_TRUSTED_HOPS } from "./trustedHops.js"

export const TrustedHops = Schema.Int.pipe(
  Schema.between(0, MAX_TRUSTED_HOPS, { message: () => `hops must be an integer from 0 to ${MAX_TRUSTED_HOPS}` }),
)

/** What the current hop setting makes of this very request (spec "Administration"). */
export class TrustedProxiesView extends Schema.Class<TrustedProxiesView>("TrustedProxiesView")({
  hops: Schema.Int,
  resolved_address: Schema.String,
  forwarded_chain: Schema.Array(Schema.String),
  socket_peer: Schema.String,
  implied_proxy_count: Schema.Int,
}) {}

export class TrustedProxiesApi extends HttpApiGroup.make("trustedProxies")
  .add(HttpApiEndpoint.get("get", "/api/admin/trusted-proxies").addSuccess(TrustedProxiesView))
  .add(
    HttpApiEndpoint.put("set", "/api/admin/trusted-proxies")
      .setPayload(Schema.Struct({ hops: TrustedHops }))
      .addSuccess(TrustedProxiesView),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: trusted proxies") {}
