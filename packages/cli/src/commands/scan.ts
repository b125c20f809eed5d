import type { Command } from "commander"
import type { ScanFlags } from "../flags.js"
import { withDatabaseFlags } from "./serve.js"

export const registerScan = (program: Command) => {
  withDatabaseFlags(
    program
      .command("scan")
      .description("index the library now, with a progress bar and a summary (incremental unless --full)")
      .option("--full", "re-read every file, not only new and changed ones", false)
      .option("-l, --library <dir>", "music folder (env TONEARM_LIBRARY, default <data-dir>/music)"),
  ).action(async (flags: ScanFlags) => (await import("../actions/scan.js")).scan(flags))
}
