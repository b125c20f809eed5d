import type { Command } from "commander"
import type { ServerFlags } from "../flags.js"
import { withDatabaseFlags } from "./serve.js"

// Actions are loaded on use, so `--help` answers without loading the server.
export const registerBackup = (program: Command) => {
  withDatabaseFlags(
    program
      .command("backup <file>")
      .description(
        "write a consistent backup of the database and the data directory's secrets to <file> (the server may keep running)",
      ),
  ).action(async (file: string, flags: ServerFlags) => (await import("../actions/backup.js")).backup(file, flags))

  withDatabaseFlags(
    program
      .command("restore <file>")
      .description(
        "restore a backup into a fresh data directory (or an empty --database-url), then bring its schema up to date",
      ),
  ).action(async (file: string, flags: ServerFlags) => (await import("../actions/backup.js")).restore(file, flags))
}
