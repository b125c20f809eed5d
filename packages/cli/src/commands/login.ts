import type { Command } from "commander"
import type { LoginFlags, RemoteFlags } from "../flags.js"

const actions = () => import("../actions/login.js")

export const registerLogin = (program: Command) => {
  program
    .command("login")
    .description(
      "log in to the running server (asks username and password; the password is not shown) and keep the login for later commands",
    )
    .option("--server <url>", "the server (env TONEARM_SERVER; default: the one tonearm serve last started)")
    .option("--data-dir <dir>", "the data directory of the server to log in to")
    .option("-u, --username <name>", "the account (asked when omitted)")
    .action(async (flags: LoginFlags) => (await actions()).login(flags))

  program
    .command("logout")
    .description("forget the stored login for the server (and end that session on it)")
    .option("--server <url>", "the server (env TONEARM_SERVER; default: the one tonearm serve last started)")
    .action(async (flags: RemoteFlags) => (await actions()).logout(flags))
}
