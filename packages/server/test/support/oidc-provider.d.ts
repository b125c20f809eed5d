/** The little of `oidc-provider` (a devDependency without types) the OpenID Connect test uses. */
declare module "oidc-provider" {
  import type { Server } from "node:http"
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    listen(port: number, host: string, callback: () => void): Server
  }
}
