import { HttpApi } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"

/** A route served beside the contract (`:name` marks a path parameter, a trailing `*` any rest). */
export interface TemplateRoute {
  readonly method: string
  readonly path: string
}

interface Candidate {
  readonly template: string
  readonly segments: ReadonlyArray<string>
  readonly rest: boolean
  readonly params: number
}

/** What a request that matches no route is counted under: a bounded label, never the raw path. */
export const UNMATCHED_ROUTE = "unmatched"

const splitPath = (path: string): Array<string> => path.split("/").filter((segment) => segment !== "")

const matches = (candidate: Candidate, segments: ReadonlyArray<string>): boolean => {
  if (candidate.rest ? segments.length < candidate.segments.length : segments.length !== candidate.segments.length)
    return false
  for (let i = 0; i < candidate.segments.length; i++) {
    const expected = candidate.segments[i]!
    if (!expected.startsWith(":") && expected !== segments[i]) return false
  }
  return true
}

/**
 * Maps a request's method and path to the template of the route that serves it (`/api/albums/:id`), so metrics
 * are labelled per route, never per raw path (ids would make the series unbounded). Routes are indexed by method
 * and first segment; among several matches the one with the fewest parameters wins (a static segment beats a
 * parameter, as the router decides). HEAD counts as GET. A path no route serves is `unmatched`.
 */
export const makeRouteTemplates = (extraRoutes: ReadonlyArray<TemplateRoute>) => {
  const index = new Map<string, Array<Candidate>>()
  const add = (method: string, path: string) => {
    const rest = path.endsWith("*")
    const segments = splitPath(rest ? path.slice(0, -1) : path)
    const candidate: Candidate = {
      template: path,
      segments,
      rest,
      params: segments.filter((segment) => segment.startsWith(":")).length + (rest ? 100 : 0),
    }
    const first = segments[0] ?? ""
    const key = `${method.toUpperCase()} ${first.startsWith(":") ? ":" : first}`
    const list = index.get(key) ?? []
    list.push(candidate)
    list.sort((a, b) => a.params - b.params)
    index.set(key, list)
  }
  HttpApi.reflect(TonearmApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path),
  })
  for (const route of extraRoutes) add(route.method, route.path)

  return (method: string, path: string): string => {
    const verb = method === "HEAD" ? "GET" : method
    const segments = splitPath(path)
    const first = segments[0] ?? ""
    // Its own first segment, a parameter there, then the catch-alls at the root (the web app's `/*`).
    for (const key of first === "" ? [`${verb} `] : [`${verb} ${first}`, `${verb} :`, `${verb} `]) {
      const found = index.get(key)?.find((candidate) => matches(candidate, segments))
      if (found !== undefined) return found.template
    }
    return UNMATCHED_ROUTE
  }
}
