import { createInterface } from "node:readline/promises"
import { CreateUserRequest } from "@tonearm/core"
import { AccountsService, DatabaseLive, ServicesLive, TonearmConfig } from "@tonearm/server"
import { DateTime, Effect, Layer, Schema } from "effect"
import { configProviderFor } from "../config.js"
import type { CreateFlags, ServerFlags } from "../flags.js"
import { runCommand } from "../run.js"

/** Accounts are managed straight in the database, so this works before the server ever ran. */
const withAccounts = <A, E>(flags: ServerFlags, use: (accounts: AccountsService) => Effect.Effect<A, E>) =>
  Effect.flatMap(AccountsService, use).pipe(
    Effect.provide(ServicesLive.pipe(Layer.provide(DatabaseLive), Layer.provide(TonearmConfig.layer))),
    Effect.withConfigProvider(configProviderFor(flags)),
  )

const readPassword = async (given: string | undefined): Promise<string> => {
  if (given !== undefined) return given
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY })
  try {
    return (await rl.question(process.stdin.isTTY ? "Password: " : "")).trim()
  } finally {
    rl.close()
  }
}

export const createUser = async (username: string, flags: CreateFlags) => {
  const password = await readPassword(flags.password)
  runCommand(
    withAccounts(flags, (accounts) =>
      Schema.decodeUnknown(CreateUserRequest)({ username, password, email: flags.email, is_admin: flags.admin }).pipe(
        Effect.flatMap(accounts.createUser),
        Effect.tap((user) =>
          Effect.sync(() => console.log(`created ${user.is_admin ? "admin" : "user"} ${user.username} (${user.id})`)),
        ),
      ),
    ),
  )
}

export const listUsers = (flags: ServerFlags) =>
  runCommand(
    withAccounts(flags, (accounts) =>
      Effect.flatMap(accounts.listUsers(), (rows) =>
        Effect.sync(() => {
          console.log(["USERNAME", "ADMIN", "EMAIL", "CREATED", "ID"].join("\t"))
          for (const row of rows) {
            const created = DateTime.formatIso(row.created_at)
            console.log([row.username, row.is_admin ? "yes" : "no", row.email ?? "-", created, row.id].join("\t"))
          }
        }),
      ),
    ),
  )

export const resetLink = (username: string, flags: ServerFlags) =>
  runCommand(
    withAccounts(flags, (accounts) =>
      Effect.flatMap(accounts.resetLink(username), (link) => Effect.sync(() => console.log(link))),
    ),
  )
