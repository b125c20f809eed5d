import type { Command } from "commander"
import { type RebuildFlags, withRemoteFlags } from "../flags.js"

export const registerRebuild = (program: Command) => {
  withRemoteFlags(
    program
      .command("rebuild")
      .description(
        "rebuild system playlists and recommendations now on a running server, for one user or everyone (admin)",
      )
      .option("--user <name>", "the user to rebuild")
      .option("--all", "rebuild every user", false),
  ).action(async (flags: RebuildFlags) => (await import("../actions/rebuild.js")).rebuild(flags))
}
