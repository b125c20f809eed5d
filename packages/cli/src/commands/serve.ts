import type { Command } from "commander"
import type { ServerFlags } from "../flags.js"

/** The flags every command that reaches the database shares. */
export const withDatabaseFlags = (command: Command) =>
  command
    .option(
      "--data-dir <dir>",
      "data directory: embedded PostgreSQL, stream secret, caches (env TONEARM_DATA_DIR, default ./data)",
    )
    .option("--database-url <url>", "use this PostgreSQL instead of the embedded one (env TONEARM_DATABASE_URL)")

// Actions are loaded on use, so `--help` answers without loading the server.
export const registerServe = (program: Command) => {
  withDatabaseFlags(
    program
      .command("serve")
      .description("start the server (runs pending migrations first)")
      .option("-p, --port <port>", "port to listen on (env TONEARM_PORT, default 4533)")
      .option("-H, --host <host>", "address to bind (env TONEARM_HOST, default 0.0.0.0)")
      .option(
        "-l, --library <dir>",
        "music folder to index, one library each; repeat for several (env TONEARM_LIBRARY, a list separated by the path delimiter; default <data-dir>/music)",
        (dir: string, dirs: Array<string> = []) => [...dirs, dir],
      ),
  ).action(async (flags: ServerFlags) => (await import("../actions/serve.js")).serve(flags))

  withDatabaseFlags(program.command("migrate").description("apply pending database migrations and exit")).action(
    async (flags: ServerFlags) => (await import("../actions/serve.js")).migrate(flags),
  )
}
