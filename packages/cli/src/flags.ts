import type { Command } from "commander"

/** Parsed command-line flags: commands declare them, actions read them; both import this file, not each other. */

/**
 * Adds the flags every command that can talk to a running server takes. Here, not beside the SDK
 * in remote.ts: registering the commands (and `--help`, `--version`) must not load the client.
 */
export const withRemoteFlags = (command: Command): Command =>
  command
    .option("--server <url>", "the running server (env TONEARM_SERVER; default: the one tonearm serve last started)")
    .option("--token <token>", "an admin's bearer token (env TONEARM_TOKEN; default: the one tonearm login stored)")
    .option("--json", "print JSON for scripts instead of a table", false)

export interface ServerFlags {
  readonly port?: string
  readonly host?: string
  /** `--library`, given once or several times (one library each). */
  readonly library?: string | ReadonlyArray<string>
  readonly dataDir?: string
  readonly databaseUrl?: string
}

/** A command that talks to a running server through the SDK (`--server`, `--token`, `--json`). */
export interface RemoteFlags {
  readonly server?: string
  readonly token?: string
  readonly json: boolean
}

/** A command that goes to the running server, or opens the database itself when none runs. */
export interface AdminFlags extends ServerFlags, RemoteFlags {}

export interface ScanFlags extends AdminFlags {
  readonly full: boolean
}

export interface CreateFlags extends AdminFlags {
  readonly password?: string
  readonly email?: string
  readonly admin: boolean
}

/** `tonearm login`. */
export interface LoginFlags extends RemoteFlags {
  readonly username?: string
  readonly dataDir?: string
}

/** `tonearm libraries add`. */
export interface AddLibraryFlags extends RemoteFlags {
  readonly name?: string
}

/** `tonearm missing purge`. */
export interface PurgeFlags extends RemoteFlags {
  readonly all: boolean
}

/** `tonearm rebuild`: exactly one of `--user NAME` and `--all`. */
export interface RebuildFlags extends RemoteFlags {
  readonly user?: string
  readonly all: boolean
}

/** `tonearm diagnostics export`. */
export interface DiagnosticsExportFlags extends RemoteFlags {
  readonly user?: string
  readonly device?: string
  readonly kind?: string
  readonly from?: string
  readonly to?: string
  readonly format?: string
  readonly output?: string
}

/** `tonearm import <file>`. */
export interface ImportFlags extends AdminFlags {
  readonly user?: string
  readonly source?: string
  readonly allUnmatched: boolean
}
