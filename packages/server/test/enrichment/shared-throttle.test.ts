import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Schema, type Scope } from "effect"
import { ENRICHMENT_DEFAULTS } from "../../src/config/TonearmConfig.js"
import { ProviderHttp } from "../../src/enrichment/index.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { QuietLogs, testConfig } from "../support/TestServer.js"

/**
 * Issue 30 item 1: a provider's throttle is one for every replica on the database (a `provider_throttles` row taken
 * with UPDATE … RETURNING), so two replicas together keep MusicBrainz's one request a second.
 */
const THROTTLE_MS = 150
/**
 * Arrival jitter on a loaded machine (timers, event loops, the fake's own scheduling): one interval. Per-replica
 * throttles would span three intervals (each replica's four), with gaps near zero.
 */
const TOLERANCE_MS = THROTTLE_MS

const arrivals: Array<number> = []
const musicbrainz = createServer((request, response) => {
  arrivals.push(performance.now())
  request.resume()
  response.writeHead(200, { "content-type": "application/json" })
  response.end("{}")
})
await new Promise<void>((resolve) => musicbrainz.listen(0, "127.0.0.1", resolve))
const baseUrl = `http://127.0.0.1:${(musicbrainz.address() as AddressInfo).port}`

const config = testConfig({
  enrichment: { ...ENRICHMENT_DEFAULTS, musicbrainz: { baseUrl, apiKey: null, throttleMs: THROTTLE_MS } },
})

/** One replica's provider client (its own instance, as in another process). */
const replica = (scope: Scope.Scope) =>
  Layer.buildWithScope(Layer.fresh(ProviderHttp.Default), scope).pipe(Effect.map(Context.get(ProviderHttp)))

layer(Layer.mergeAll(TestDatabaseLive, QuietLogs, FetchHttpClient.layer, config), { excludeTestServices: true })(
  "shared provider throttle",
  (it) => {
    it.effect("two replicas' requests to one provider are spaced by its throttle together", () =>
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const [a, b] = [yield* replica(scope), yield* replica(scope)]
        const ask = (client: ProviderHttp) =>
          client.getJson("musicbrainz", `${baseUrl}/ws/2/artist`, {}, Schema.Unknown)
        // Warm up (the first fetch of a process loads its HTTP client): arrivals then measure the throttle alone.
        yield* ask(a)
        yield* ask(b)
        arrivals.length = 0
        yield* Effect.all([...Array.from({ length: 4 }, () => ask(a)), ...Array.from({ length: 4 }, () => ask(b))], {
          concurrency: "unbounded",
        })
        expect(arrivals).toHaveLength(8)
        const sorted = [...arrivals].sort((x, y) => x - y)
        const gaps = sorted.slice(1).map((at, index) => at - sorted[index]!)
        // The eight starts span at least seven throttle intervals, whichever replica sent each; no two came at once
        // (per-replica throttles let the two replicas' requests land together). Arrival times carry the jitter of
        // the path to the fake (timers, the event loop), so a single gap may be short of the interval: one arrival
        // late and the next on time made a 73 ms gap on a loaded machine. Requests sent together land within a few ms.
        expect(sorted.at(-1)! - sorted[0]!).toBeGreaterThanOrEqual(7 * THROTTLE_MS - TOLERANCE_MS)
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(THROTTLE_MS / 4)
      }).pipe(Effect.scoped, Effect.ensuring(Effect.promise(() => new Promise((done) => musicbrainz.close(done))))),
    )
  },
)
