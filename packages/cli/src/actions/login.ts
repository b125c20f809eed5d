import { Effect, Option } from "effect"
import { forgetLogin, storeLogin } from "../credentials.js"
import { CliError } from "../errors.js"
import type { LoginFlags, RemoteFlags } from "../flags.js"
import { makePrompter } from "../prompt.js"
import { anonymousSession, explained, sessionOn } from "../remote.js"
import { runCommand } from "../run.js"
import { locate, type Remote, requireServer } from "../target.js"

/** `tonearm login`: a session on the server, its token kept in the user's config directory (0600). */
export const login = (flags: LoginFlags) =>
  runCommand(
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* requireServer(flags)
        const prompter = yield* makePrompter
        const username = flags.username ?? (yield* prompter.line("Username: "))
        const password = yield* prompter.secret("Password: ")
        const session = yield* anonymousSession(server)
        const result = yield* session.client.auth.login({ payload: { username, password } }).pipe(
          Effect.catchTags({
            InvalidCredentials: () =>
              Effect.fail(new CliError({ message: `wrong username or password for ${server.url}` })),
            RateLimited: (error) => Effect.fail(new CliError({ message: error.message })),
          }),
          explained(session),
        )
        const file = yield* storeLogin(server.url, { username: result.user.username, token: result.token })
        yield* Effect.sync(() =>
          console.log(
            `logged in to ${server.url} as ${result.user.username}${result.user.is_admin ? " (admin)" : ""}; login stored in ${file}`,
          ),
        )
      }),
    ),
  )

/** `tonearm logout`: forgets the stored login and, when the server answers, ends that session there. */
export const logout = (flags: RemoteFlags) =>
  runCommand(
    Effect.gen(function* () {
      const target = yield* locate(flags)
      const server: Remote | undefined =
        target._tag === "Remote"
          ? target
          : Option.getOrUndefined(
              Option.map(target.stopped, (record) => ({
                _tag: "Remote" as const,
                url: record.local_url,
                publicUrl: record.url,
              })),
            )
      if (server === undefined) return yield* new CliError({ message: "no server to log out of: pass --server URL" })
      const before = yield* sessionOn(server, { token: undefined })
      const removed = yield* forgetLogin(server.url, server.publicUrl)
      if (removed.length === 0) return yield* Effect.sync(() => console.log(`not logged in to ${server.url}`))
      if (Option.isSome(before.login)) yield* before.client.auth.logout().pipe(Effect.ignore)
      yield* Effect.sync(() => console.log(`logged out of ${server.url}`))
    }),
  )
