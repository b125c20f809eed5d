import type { Command } from "commander"
import { type ScanFlags, withRemoteFlags } from "../flags.js"
import { withDatabaseFlags } from "./serve.js"

export const registerScan = (program: Command) => {
  withRemoteFlags(
    withDatabaseFlags(
      program
        .command("scan")
        .description(
          "index the library now and print a summary (incremental unless --full): on the running server, or in the data directory when none runs",
        )
        .option("--full", "re-read every file, not only new and changed ones", false)
        .option(
          "-l, --library <dir>",
          "music folder, when no server runs (env TONEARM_LIBRARY; default: the one the last server used, else <data-dir>/music)",
        ),
    ),
  ).action(async (flags: ScanFlags) => (await import("../actions/scan.js")).scan(flags))
}
