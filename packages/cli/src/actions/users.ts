import { type AdminUserRow, CreateUserRequest, RegisterRequest } from "@tonearm/core"
import { AccountsService, DatabaseLive, ServicesLive, TonearmConfig } from "@tonearm/server"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { configProviderFor } from "../config.js"
import { storeLogin } from "../credentials.js"
import { CliError } from "../errors.js"
import type { AdminFlags, CreateFlags } from "../flags.js"
import { makePrompter, newPassword } from "../prompt.js"
import { explained, notLoggedIn, notSignedIn, type Session, sessionOn } from "../remote.js"
import { runCommand } from "../run.js"
import { type Local, locate, recordedOf, requireDatabase } from "../target.js"

/** With no server running, accounts are managed straight in the data directory's database (never a new one). */
const withAccounts = <A, E>(
  flags: AdminFlags,
  target: Local,
  use: (accounts: AccountsService) => Effect.Effect<A, E>,
) =>
  Effect.zipRight(
    requireDatabase(target, flags.databaseUrl),
    Effect.flatMap(AccountsService, use).pipe(
      Effect.provide(ServicesLive.pipe(Layer.provide(DatabaseLive), Layer.provide(TonearmConfig.layer))),
      Effect.withConfigProvider(configProviderFor(flags, recordedOf(target))),
    ),
  )

/** An admin's session on the running server, its failures explained; refused up front without a credential. */
const asAdminOn = <A, E>(session: Session, use: (session: Session) => Effect.Effect<A, E>) =>
  session.signedIn ? use(session).pipe(explained(session)) : notSignedIn(session.server)

/** `--password`, else asked without echo (twice on a terminal), else one line of standard input. */
const passwordOf = (flags: CreateFlags) =>
  flags.password !== undefined ? Effect.succeed(flags.password) : Effect.flatMap(makePrompter, newPassword)

const printCreated = (user: { readonly username: string; readonly is_admin: boolean; readonly id: string }) =>
  Effect.sync(() => console.log(`created ${user.is_admin ? "admin" : "user"} ${user.username} (${user.id})`))

/**
 * Signed in: created by the admin. Not signed in: registered, which the server allows for the very first
 * account (made admin) or with open registration; the first admin's session is kept as this user's login.
 */
const createRemotely = (username: string, flags: CreateFlags, session: Session, password: string) =>
  Effect.gen(function* () {
    if (session.signedIn) {
      const request = yield* Schema.decodeUnknown(CreateUserRequest)({
        username,
        password,
        email: flags.email,
        is_admin: flags.admin,
      })
      const created = yield* session.client.adminUsers.create({ payload: request }).pipe(explained(session))
      return yield* printCreated(created.user)
    }
    const request = yield* Schema.decodeUnknown(RegisterRequest)({ username, password, email: flags.email })
    const result = yield* session.client.auth.register({ payload: request }).pipe(
      Effect.catchTag("RegistrationClosed", () => Effect.fail(notLoggedIn(session.server))),
      explained(session),
    )
    yield* printCreated(result.user)
    if (result.token !== undefined && result.user.is_admin) {
      const file = yield* storeLogin(session.server.url, { username: result.user.username, token: result.token })
      yield* Effect.sync(() =>
        console.error(`logged in to ${session.server.url} as ${result.user.username} (login stored in ${file})`),
      )
    }
    if (flags.admin && !result.user.is_admin)
      return yield* new CliError({
        message: `${username} was created without admin rights (only the first account becomes admin on its own): log in as an admin with tonearm login to create admins`,
      })
  })

export const createUser = (username: string, flags: CreateFlags) =>
  runCommand(
    Effect.scoped(
      Effect.gen(function* () {
        const target = yield* locate(flags)
        if (target._tag === "Local") {
          yield* requireDatabase(target, flags.databaseUrl)
          const password = yield* passwordOf(flags)
          return yield* withAccounts(flags, target, (accounts) =>
            Schema.decodeUnknown(CreateUserRequest)({
              username,
              password,
              email: flags.email,
              is_admin: flags.admin,
            }).pipe(Effect.flatMap(accounts.createUser), Effect.flatMap(printCreated)),
          )
        }
        const session = yield* sessionOn(target, flags)
        return yield* createRemotely(username, flags, session, yield* passwordOf(flags))
      }),
    ),
  )

const printUsers = (
  flags: AdminFlags,
  rows: ReadonlyArray<Pick<AdminUserRow, "username" | "is_admin" | "email" | "created_at" | "id">>,
) =>
  Effect.sync(() => {
    if (flags.json) {
      console.log(
        JSON.stringify(
          rows.map((row) => ({ ...row, created_at: DateTime.formatIso(row.created_at) })),
          null,
          2,
        ),
      )
      return
    }
    console.log(["USERNAME", "ADMIN", "EMAIL", "CREATED", "ID"].join("\t"))
    for (const row of rows) {
      const created = DateTime.formatIso(row.created_at)
      console.log([row.username, row.is_admin ? "yes" : "no", row.email ?? "-", created, row.id].join("\t"))
    }
  })

export const listUsers = (flags: AdminFlags) =>
  runCommand(
    Effect.gen(function* () {
      const target = yield* locate(flags)
      const rows =
        target._tag === "Local"
          ? yield* withAccounts(flags, target, (accounts) => accounts.listUsers())
          : yield* asAdminOn(yield* sessionOn(target, flags), ({ client }) => client.adminUsers.list())
      yield* printUsers(flags, rows)
    }),
  )

/** The link comes from the server (its public URL), or, with none running, is made on the URL it recorded. */
export const resetLink = (username: string, flags: AdminFlags) =>
  runCommand(
    Effect.gen(function* () {
      const target = yield* locate(flags)
      const url =
        target._tag === "Local"
          ? yield* withAccounts(flags, target, (accounts) => accounts.resetLink(username))
          : yield* asAdminOn(yield* sessionOn(target, flags), ({ client }) =>
              Effect.gen(function* () {
                const user = (yield* client.adminUsers.list()).find(
                  (row) => row.username.toLowerCase() === username.toLowerCase(),
                )
                if (user === undefined) return yield* new CliError({ message: `no user named ${username}` })
                return (yield* client.adminUsers.resetLink({ path: { id: user.id } })).url
              }),
            )
      yield* Effect.sync(() => console.log(url))
      if (target._tag === "Local" && Option.isNone(target.publicUrl) && process.env.TONEARM_PUBLIC_URL === undefined)
        yield* Effect.logWarning(
          "no server has run on this data directory yet: the link assumes http://localhost:4533 (set TONEARM_PUBLIC_URL)",
        )
    }),
  )
