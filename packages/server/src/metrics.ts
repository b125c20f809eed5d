import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client"

/**
 * The process's Prometheus metrics (prom-client), exposed at `GET /metrics` (system/MetricsHttp.ts). One registry
 * per process, as Prometheus scrapes a process: what the process counts as it works (requests, rebuilds) lives
 * here; what is read from the database at scrape time (scan progress, queue depths) is set by the scrape itself.
 * This file imports no domain, so any domain may record into it.
 */
export const metricsRegistry = new Registry()

// Memory (RSS, heap spaces), CPU, event-loop delay, handles and GC, under the `tonearm_` prefix.
collectDefaultMetrics({ register: metricsRegistry, prefix: "tonearm_" })
// Gauges named `_total`, which Prometheus's naming rules (and `promtool check metrics`) reserve for counters.
for (const name of ["active_handles_total", "active_requests_total", "active_resources_total"])
  metricsRegistry.removeSingleMetric(`tonearm_nodejs_${name}`)

/** Request latency buckets (seconds): a browse answer is milliseconds; a stream or a long poll is seconds. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export const httpRequests = new Counter({
  name: "tonearm_http_requests_total",
  help: "HTTP requests answered, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  registers: [metricsRegistry],
})

export const httpRequestErrors = new Counter({
  name: "tonearm_http_request_errors_total",
  help: "HTTP requests answered with a 5xx status, by method and route template",
  labelNames: ["method", "route"] as const,
  registers: [metricsRegistry],
})

export const httpRequestDuration = new Histogram({
  name: "tonearm_http_request_duration_seconds",
  help: "Time from receiving a request to its response head, by method and route template",
  labelNames: ["method", "route"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
})

export const httpRequestsInFlight = new Gauge({
  name: "tonearm_http_requests_in_flight",
  help: "HTTP requests being handled now (event streams included)",
  registers: [metricsRegistry],
})

/** A listener's rebuild takes tens of milliseconds at 20k tracks and seconds at a million. */
export const rebuildDuration = new Histogram({
  name: "tonearm_rebuild_duration_seconds",
  help: "Duration of one listener's recommendation rebuild (daily run, on-demand and after an import)",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
})

export const rebuildFailures = new Counter({
  name: "tonearm_rebuild_failures_total",
  help: "Recommendation rebuilds that failed",
  registers: [metricsRegistry],
})

/** What a pool reports (pg.Pool's own counters); the pools of this process register while they are open. */
interface PoolCounts {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
  readonly options: { readonly max?: number | undefined }
}
const openPools = new Set<PoolCounts>()

/** Counts `pool` into the DB pool gauges until the returned function is called (at the pool's end). */
export const trackPool = (pool: PoolCounts): (() => void) => {
  openPools.add(pool)
  return () => {
    openPools.delete(pool)
  }
}

const poolSum = (count: (pool: PoolCounts) => number) => {
  let sum = 0
  for (const pool of openPools) sum += count(pool)
  return sum
}

new Gauge({
  name: "tonearm_db_pool_connections",
  help: "Database connections of this process's pool, by state (idle, in use)",
  labelNames: ["state"] as const,
  registers: [metricsRegistry],
  collect() {
    const idle = poolSum((pool) => pool.idleCount)
    this.set({ state: "idle" }, idle)
    this.set({ state: "in_use" }, poolSum((pool) => pool.totalCount) - idle)
  },
})
new Gauge({
  name: "tonearm_db_pool_max_connections",
  help: "Largest number of connections the pool opens (TONEARM_DB_POOL_MAX)",
  registers: [metricsRegistry],
  collect() {
    this.set(poolSum((pool) => pool.options.max ?? 0))
  },
})
new Gauge({
  name: "tonearm_db_pool_waiting_requests",
  help: "Statements waiting for a free pool connection",
  registers: [metricsRegistry],
  collect() {
    this.set(poolSum((pool) => pool.waitingCount))
  },
})

// Read from the database (and the event bus) by each scrape: set by system/MetricsHttp.ts.
export const databaseUp = new Gauge({
  name: "tonearm_database_up",
  help: "1 when the database answered this scrape's queries, else 0",
  registers: [metricsRegistry],
})
export const scanRunning = new Gauge({
  name: "tonearm_scan_running",
  help: "1 while a library scan runs (on any replica), else 0",
  registers: [metricsRegistry],
})
export const scanFilesSeen = new Gauge({
  name: "tonearm_scan_files_seen",
  help: "Files the running scan (or the last one) has looked at",
  registers: [metricsRegistry],
})
export const scanErrors = new Gauge({
  name: "tonearm_scan_errors",
  help: "Files the running scan (or the last one) could not read",
  registers: [metricsRegistry],
})
export const scanLastDuration = new Gauge({
  name: "tonearm_scan_last_duration_seconds",
  help: "Duration of the last finished scan",
  registers: [metricsRegistry],
})
export const queueDepth = new Gauge({
  name: "tonearm_queue_depth",
  help: "Work waiting in the database's queues: enrichment (pending, due), scrobbles, imports, daily rebuilds due",
  labelNames: ["queue"] as const,
  registers: [metricsRegistry],
})
export const eventStreamSubscribers = new Gauge({
  name: "tonearm_event_stream_subscribers",
  help: "Open event streams (SSE) on this process",
  registers: [metricsRegistry],
})
