import type { Command } from "commander"
import { type PurgeFlags, type RemoteFlags, withRemoteFlags } from "../flags.js"

const actions = () => import("../actions/missing.js")

export const registerMissing = (program: Command) => {
  const missing = program
    .command("missing")
    .description(
      "tracks whose files vanished, kept hidden with their likes and plays until found again or purged (admin)",
    )

  withRemoteFlags(missing.command("list").description("every missing track, the longest missing first")).action(
    async (flags: RemoteFlags) => (await actions()).listMissing(flags),
  )

  withRemoteFlags(
    missing
      .command("purge [track_ids...]")
      .description("delete missing tracks for good: the ones named, or every one with --all")
      .option("--all", "purge every missing track", false),
  ).action(async (trackIds: Array<string>, flags: PurgeFlags) => (await actions()).purgeMissing(trackIds, flags))
}
