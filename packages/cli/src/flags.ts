/** Parsed command-line flags: commands declare them, actions read them; both import this file, not each other. */

export interface ServerFlags {
  readonly port?: string
  readonly host?: string
  readonly library?: string
  readonly dataDir?: string
  readonly databaseUrl?: string
}

export interface ScanFlags extends ServerFlags {
  readonly full: boolean
}

export interface CreateFlags extends ServerFlags {
  readonly password?: string
  readonly email?: string
  readonly admin: boolean
}

/** A command that talks to a running server through the SDK (`--server`, `--token`, `--json`). */
export interface RemoteFlags {
  readonly server?: string
  readonly token?: string
  readonly json: boolean
}

/** `tonearm rebuild`: exactly one of `--user NAME` and `--all`. */
export interface RebuildFlags extends RemoteFlags {
  readonly user?: string
  readonly all: boolean
}
