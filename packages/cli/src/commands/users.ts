import type { Command } from "commander"
import type { CreateFlags, ServerFlags } from "../flags.js"
import { withDatabaseFlags } from "./serve.js"

const actions = () => import("../actions/users.js")

export const registerUsers = (program: Command) => {
  const users = program.command("users").description("manage accounts (works with the server stopped or running)")

  withDatabaseFlags(
    users
      .command("create <username>")
      .description("create an account; the password comes from --password or standard input")
      .option("--password <password>", "the new account's password (8 to 256 characters)")
      .option("--email <email>", "email address, used for password resets")
      .option("--admin", "make the account an admin", false),
  ).action(async (username: string, flags: CreateFlags) => (await actions()).createUser(username, flags))

  withDatabaseFlags(users.command("list").description("list accounts")).action(async (flags: ServerFlags) =>
    (await actions()).listUsers(flags),
  )

  withDatabaseFlags(
    users.command("reset-link <username>").description("print a single-use password-reset link (valid one hour)"),
  ).action(async (username: string, flags: ServerFlags) => (await actions()).resetLink(username, flags))
}
