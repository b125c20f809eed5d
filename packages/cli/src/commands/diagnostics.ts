import type { Command } from "commander"
import { type DiagnosticsExportFlags, withRemoteFlags } from "../flags.js"

export const registerDiagnostics = (program: Command) => {
  const diagnostics = program
    .command("diagnostics")
    .description("device diagnostics that clients in debug mode sent (admin)")

  withRemoteFlags(
    diagnostics
      .command("export")
      .description("stream the diagnostics timeline, oldest first, as NDJSON or CSV to stdout or a file")
      .option("--user <name>", "one account (username or user id)")
      .option("--device <id>", "one device id")
      .option("--kind <kind>", "one kind: playback, upnp_sync, connectivity, power, lifecycle")
      .option("--from <time>", "from this time on (RFC 3339 or epoch milliseconds, inclusive)")
      .option("--to <time>", "up to this time (RFC 3339 or epoch milliseconds, inclusive)")
      .option("--format <format>", "ndjson or csv", "ndjson")
      .option("-o, --output <file>", "write to this file instead of stdout"),
  ).action(async (flags: DiagnosticsExportFlags) =>
    (await import("../actions/diagnostics.js")).exportDiagnostics(flags),
  )
}
