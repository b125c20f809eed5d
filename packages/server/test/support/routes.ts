import { HttpApi } from "@effect/platform"
import { AdminAuthentication, Authentication, TonearmApi } from "@tonearm/core"

export interface ContractRoute {
  readonly group: string
  readonly name: string
  readonly method: string
  /** The path with every parameter filled with a random UUID. */
  readonly samplePath: string
  readonly guard: "user" | "admin" | "none"
}

/** Every route of the contract, read from the contract itself so new routes are covered automatically. */
export const contractRoutes = (): ReadonlyArray<ContractRoute> => {
  const routes: Array<ContractRoute> = []
  HttpApi.reflect(TonearmApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, middleware }) => {
      const keys = new Set(Array.from(middleware, (tag) => tag.key))
      routes.push({
        group: group.identifier,
        name: endpoint.name,
        method: endpoint.method,
        samplePath: endpoint.path.replace(/:[A-Za-z_][A-Za-z0-9_]*\??/g, () => crypto.randomUUID()),
        guard: keys.has(AdminAuthentication.key) ? "admin" : keys.has(Authentication.key) ? "user" : "none",
      })
    },
  })
  return routes
}
