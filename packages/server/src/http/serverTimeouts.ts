import type { Server } from "node:http"

/**
 * Node's socket limits, set explicitly (issue 29 item 6) rather than left to whatever the Node version defaults to:
 * a client must send its whole header block within 20 s (slowloris) and its whole request, body included, within
 * 300 s (a large history upload on a slow link still fits); an idle keep-alive connection is closed after 5 s.
 */
export const SERVER_TIMEOUTS = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
} as const

export const applyServerTimeouts = (server: Server): Server => {
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeoutMs
  server.requestTimeout = SERVER_TIMEOUTS.requestTimeoutMs
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeoutMs
  return server
}
