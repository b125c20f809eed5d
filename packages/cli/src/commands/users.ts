import type { Command } from "commander"
import { type AdminFlags, type CreateFlags, withRemoteFlags } from "../flags.js"
import { withDatabaseFlags } from "./serve.js"

const actions = () => import("../actions/users.js")

/** Through the running server when there is one (as a logged-in admin), else straight into its data directory. */
const withAdminFlags = (command: Command) => withRemoteFlags(withDatabaseFlags(command))

export const registerUsers = (program: Command) => {
  const users = program
    .command("users")
    .description(
      "manage accounts: through the running server (tonearm login first), or in the data directory when none runs",
    )

  withAdminFlags(
    users
      .command("create <username>")
      .description(
        "create an account; the password comes from --password, a prompt without echo, or standard input (the first account of a new server becomes admin and logs you in)",
      )
      .option("--password <password>", "the new account's password (8 to 256 characters)")
      .option("--email <email>", "email address, used for password resets")
      .option("--admin", "make the account an admin", false),
  ).action(async (username: string, flags: CreateFlags) => (await actions()).createUser(username, flags))

  withAdminFlags(users.command("list").description("list accounts")).action(async (flags: AdminFlags) =>
    (await actions()).listUsers(flags),
  )

  withAdminFlags(
    users
      .command("reset-link <username>")
      .description("print a single-use password-reset link (valid one hour) on the server's public URL"),
  ).action(async (username: string, flags: AdminFlags) => (await actions()).resetLink(username, flags))
}
