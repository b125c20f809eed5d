import type { Command } from "commander"
import { type ImportFlags, withRemoteFlags } from "../flags.js"
import { withDatabaseFlags } from "./serve.js"

export const registerImport = (program: Command) => {
  withRemoteFlags(
    withDatabaseFlags(
      program
        .command("import")
        .argument(
          "<file>",
          "a ListenBrainz export (JSON, JSONL or zip), a Spotify streaming history (JSON or zip), or a navidrome.db",
        )
        .description(
          "import listening history from a file and follow it to the end: on the running server, or in the data directory when none runs; a navidrome.db is the admin's import of every user",
        )
        .option(
          "--user <name>",
          "whose history it is (through a server: the signed-in user; required when no server runs)",
        )
        .option(
          "--source <source>",
          "listenbrainz_export, spotify_extended or navidrome_db (default: detected from the file)",
        )
        .option("--all-unmatched", "list every entry that matched no track (default: the first 100)", false),
    ),
  ).action(async (file: string, flags: ImportFlags) => (await import("../actions/import.js")).importFile(file, flags))
}
