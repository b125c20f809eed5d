import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import sharp from "sharp"
import { ENRICHMENT_DEFAULTS, type EnrichmentSettings } from "../../src/config/TonearmConfig.js"
import type { FakeRequest, FakeServer } from "../support/fakeServer.js"

/** A MusicBrainz-shaped id derived from a name, so a fake answers the same id for the same name every time. */
export const mbidOf = (text: string): string => {
  const hex = createHash("sha1").update(text).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** The phrase of a Lucene `field:"…"` clause in a MusicBrainz search query. */
export const phraseOf = (query: string | null, field: string): string | undefined => {
  const match = new RegExp(`${field}:"((?:[^"\\\\]|\\\\.)*)"`).exec(query ?? "")
  return match === null ? undefined : match[1]!.replace(/\\(.)/g, "$1")
}

export const MB_ARTIST_TAGS = [
  { name: "Shoegaze", count: 10 },
  { name: "melancholic", count: 6 },
  { name: "seen live", count: 9 },
]
export const MB_RELEASE_TAGS = [{ name: "dream pop", count: 4 }]

/** A fake MusicBrainz ws/2: lookups by id and searches by name, every entity tagged. */
export const fakeMusicBrainz = (server: FakeServer) => {
  server.on("GET", /^\/ws\/2\/artist\/[0-9a-f-]{36}$/, (request) => ({
    body: { id: request.path.split("/").pop(), name: "Someone", tags: MB_ARTIST_TAGS, genres: [] },
  }))
  server.on("GET", "/ws/2/artist", (request) => {
    const name = phraseOf(request.query.get("query"), "artist") ?? "?"
    return { body: { artists: [{ id: mbidOf(`artist:${name}`), name, score: 100, tags: MB_ARTIST_TAGS }] } }
  })
  server.on("GET", /^\/ws\/2\/release\/[0-9a-f-]{36}$/, (request) => ({
    body: { id: request.path.split("/").pop(), tags: MB_RELEASE_TAGS },
  }))
  server.on("GET", "/ws/2/release", (request) => {
    const title = phraseOf(request.query.get("query"), "release") ?? "?"
    return { body: { releases: [{ id: mbidOf(`release:${title}`), title, score: 100, tags: MB_RELEASE_TAGS }] } }
  })
}

export const jpeg = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: "#cc3300" } })
    .jpeg()
    .toBuffer()

/** Fast settings aimed at the fakes: small throttles, backoff and poll intervals. */
export const fastEnrichment = (urls: {
  readonly musicbrainz: string
  readonly lastfm: string
  readonly listenbrainz: string
  readonly coverartarchive: string
}): EnrichmentSettings => ({
  ...ENRICHMENT_DEFAULTS,
  musicbrainz: { baseUrl: urls.musicbrainz, apiKey: null, throttleMs: 40 },
  lastfm: { baseUrl: urls.lastfm, apiKey: null, throttleMs: 5 },
  listenbrainz: { baseUrl: urls.listenbrainz, apiKey: null, throttleMs: 5 },
  listenbrainzLabsUrl: urls.listenbrainz,
  coverartarchive: { baseUrl: urls.coverartarchive, apiKey: null, throttleMs: 5 },
  requestTimeoutMs: 2000,
  retryBaseMs: 150,
  retryMaxMs: 1000,
  maxAttempts: 3,
  pollMs: 100,
  reconcileMs: 200,
  managerTimeoutMs: 1000,
})

/** Rows of one provider by state. */
export const stateCounts = (provider: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string; n: number }>`
      SELECT status, count(*)::int AS n FROM enrichment_state WHERE provider = ${provider} GROUP BY status`.pipe(
      Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.status, row.n])) as Record<string, number>),
    ),
  )

/** Waits (real time) until the provider has rows and none is pending. */
export const drained = (provider: string, timeoutMs = 60_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const counts = yield* stateCounts(provider)
      const total = Object.values(counts).reduce((sum, n) => sum + n, 0)
      if (total > 0 && (counts.pending ?? 0) === 0) return counts
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(
      new Error(`${provider} did not drain in ${timeoutMs} ms: ${JSON.stringify(yield* stateCounts(provider))}`),
    )
  })

/** Waits (real time) until `check` holds. */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string, timeoutMs = 20_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (yield* check) return
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** Gaps in milliseconds between consecutive request arrivals. */
export const gapsOf = (requests: ReadonlyArray<FakeRequest>) => {
  const times = requests.map((request) => request.at).sort((a, b) => a - b)
  return times.slice(1).map((at, index) => at - times[index]!)
}
