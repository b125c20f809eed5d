import { createInterface } from "node:readline/promises"
import { CreateUserRequest } from "@tonearm/core"
import { AccountsService, DatabaseLive, ServicesLive, TonearmConfig } from "@tonearm/server"
import type { Command } from "commander"
import { DateTime, Effect, Layer, Schema } from "effect"
import { configProviderFor, type ServerFlags } from "../config.js"
import { runCommand } from "../run.js"
import { withDatabaseFlags } from "./serve.js"

/** Accounts are managed straight in the database, so this works before the server ever ran. */
const withAccounts = <A, E>(flags: ServerFlags, use: (accounts: AccountsService) => Effect.Effect<A, E>) =>
  Effect.flatMap(AccountsService, use).pipe(
    Effect.provide(ServicesLive.pipe(Layer.provide(DatabaseLive), Layer.provide(TonearmConfig.layer))),
    Effect.withConfigProvider(configProviderFor(flags)),
  )

const readPassword = async (given: string | undefined): Promise<string> => {
  if (given !== undefined) return given
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY })
  try {
    return (await rl.question(process.stdin.isTTY ? "Password: " : "")).trim()
  } finally {
    rl.close()
  }
}

export const registerUsers = (program: Command) => {
  const users = program.command("users").description("manage accounts (works with the server stopped or running)")

  withDatabaseFlags(
    users
      .command("create <username>")
      .description("create an account; the password comes from --password or standard input")
      .option("--password <password>", "the new account's password (8 to 256 characters)")
      .option("--email <email>", "email address, used for password resets")
      .option("--admin", "make the account an admin", false),
  ).action(async (username: string, flags: ServerFlags & { password?: string; email?: string; admin: boolean }) => {
    const password = await readPassword(flags.password)
    const input = Schema.decodeUnknown(CreateUserRequest)({
      username,
      password,
      email: flags.email,
      is_admin: flags.admin,
    })
    runCommand(
      withAccounts(flags, (accounts) =>
        Effect.flatMap(input, accounts.createUser).pipe(
          Effect.tap((user) =>
            Effect.sync(() => console.log(`created ${user.is_admin ? "admin" : "user"} ${user.username} (${user.id})`)),
          ),
        ),
      ),
    )
  })

  withDatabaseFlags(users.command("list").description("list accounts")).action((flags: ServerFlags) => {
    runCommand(
      withAccounts(flags, (accounts) =>
        Effect.flatMap(accounts.listUsers(), (rows) =>
          Effect.sync(() => {
            console.log(["USERNAME", "ADMIN", "EMAIL", "CREATED", "ID"].join("\t"))
            for (const row of rows) {
              console.log(
                [
                  row.username,
                  row.is_admin ? "yes" : "no",
                  row.email ?? "-",
                  DateTime.formatIso(row.created_at),
                  row.id,
                ].join("\t"),
              )
            }
          }),
        ),
      ),
    )
  })

  withDatabaseFlags(
    users.command("reset-link <username>").description("print a single-use password-reset link (valid one hour)"),
  ).action((username: string, flags: ServerFlags) => {
    runCommand(
      withAccounts(flags, (accounts) =>
        Effect.flatMap(accounts.resetLink(username), (link) => Effect.sync(() => console.log(link))),
      ),
    )
  })
}
