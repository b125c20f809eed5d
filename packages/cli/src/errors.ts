import { Data } from "effect"

/** A failure explained for the operator in one line; printed as `tonearm: <message>`, exit 1. */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

/** `listen EADDRINUSE` from the HTTP server (or the probe before it), said with the port and the flag to change. */
export const portInUse = (host: string, port: number) =>
  new CliError({
    message: `port ${port} is already in use (another tonearm or program is listening on ${host}:${port}); choose another with --port`,
  })

/** The socket error behind a failed listen, when that is what it is. */
export const addressInUse = (cause: unknown): { host: string; port: number } | undefined => {
  const error = cause as { code?: unknown; port?: unknown; address?: unknown } | null
  return error !== null && typeof error === "object" && error.code === "EADDRINUSE" && typeof error.port === "number"
    ? { host: typeof error.address === "string" ? error.address : "0.0.0.0", port: error.port }
    : undefined
}
