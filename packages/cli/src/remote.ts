import { FetchHttpClient } from "@effect/platform"
import { anonymous, bearer, makeTonearmClient, type TonearmClient } from "@tonearm/client-sdk"
import { Effect, Option } from "effect"
import { type StoredLogin, storedLogin } from "./credentials.js"
import { CliError } from "./errors.js"
import type { RemoteFlags } from "./flags.js"
import { answers } from "./state.js"
import { type LocateFlags, type Remote, requireServer } from "./target.js"

/** A client on one server, and who it is signed in as (when known). */
export interface Session {
  readonly client: TonearmClient
  readonly server: Remote
  /** The stored login used, when no --token/TONEARM_TOKEN was given. */
  readonly login: Option.Option<StoredLogin>
  readonly signedIn: boolean
}

const clientOf = (server: Remote, token: string | undefined) =>
  makeTonearmClient({
    baseUrl: server.url,
    credentials: token === undefined ? anonymous : bearer(token),
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** The SDK client for a server, signed in with `--token`, TONEARM_TOKEN or the login stored for that server. */
export const sessionOn = (server: Remote, flags: { readonly token?: string | undefined }) =>
  Effect.gen(function* () {
    const given = flags.token || process.env.TONEARM_TOKEN || undefined
    const login = given === undefined ? yield* storedLogin(server.url, server.publicUrl) : Option.none()
    const token = given ?? Option.getOrUndefined(Option.map(login, (stored) => stored.token))
    const client = yield* clientOf(server, token)
    return { client, server, login, signedIn: token !== undefined } satisfies Session
  })

/** A client with no credential (login, first-account registration). */
export const anonymousSession = (server: Remote) =>
  Effect.map(
    clientOf(server, undefined),
    (client): Session => ({ client, server, login: Option.none(), signedIn: false }),
  )

export const notLoggedIn = (server: Remote) =>
  new CliError({ message: `not logged in to ${server.url}: run tonearm login (or pass --token)` })

/** No credential: said as "not logged in", unless the server does not even answer. */
export const notSignedIn = (server: Remote) =>
  Effect.flatMap(answers(server.url), (up) => Effect.fail(up ? notLoggedIn(server) : unreachable(server, "no answer")))

export const unreachable = (server: Remote, reason: string) =>
  new CliError({
    message: `cannot reach the tonearm server at ${server.url} (${reason}): is it running? (tonearm serve, or --server URL)`,
  })

/** A session as an admin on the running server: refused up front when there is no credential at all. */
export const adminSession = (flags: RemoteFlags & LocateFlags) =>
  Effect.gen(function* () {
    const session = yield* sessionOn(yield* requireServer(flags), flags)
    if (!session.signedIn) return yield* notSignedIn(session.server)
    return session
  })

const transportReason = (cause: unknown): string => {
  let current = cause as { code?: unknown; cause?: unknown; message?: unknown } | undefined
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    if (typeof current.code === "string") return current.code
    current = current.cause as typeof current
  }
  return String((cause as { message?: unknown } | undefined)?.message ?? cause)
}

/** Who the session is, for "user X is not an admin". */
const whoIs = (session: Session) =>
  Option.match(session.login, {
    onSome: (login) => Effect.succeed(login.username),
    onNone: () =>
      session.client.me.get().pipe(
        Effect.map((me) => me.username),
        Effect.orElseSucceed(() => "of this token"),
      ),
  })

/**
 * The SDK's failures said for the operator in one line: an unreachable server names its URL, 401 says to log
 * in, 403 names the user who is not an admin, an unexpected answer names the request. The contract's other
 * errors (not found, conflict, …) keep the server's message.
 */
export const explained =
  (session: Session) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError, R> =>
    Effect.catchAll(effect, (error): Effect.Effect<never, E | CliError> => {
      const tagged = error as { _tag?: unknown; reason?: unknown; cause?: unknown; response?: unknown }
      switch (tagged._tag) {
        case "RequestError":
          return Effect.fail(unreachable(session.server, transportReason(tagged.cause)))
        case "ResponseError": {
          const response = tagged.response as { status: number; request: { method: string; url: string } }
          return Effect.fail(
            new CliError({
              message: `${session.server.url} answered ${response.status} to ${response.request.method} ${new URL(response.request.url).pathname}: is it a tonearm server of this version?`,
            }),
          )
        }
        case "Unauthenticated":
          return Effect.fail(
            session.signedIn
              ? new CliError({
                  message: `not logged in to ${session.server.url} (the stored login or token is no longer valid): run tonearm login`,
                })
              : notLoggedIn(session.server),
          )
        case "Forbidden":
          return Effect.flatMap(whoIs(session), (name) =>
            Effect.fail(new CliError({ message: `user ${name} is not an admin (this command is for admins only)` })),
          )
        default:
          return Effect.fail(error)
      }
    })

/** Prints rows as an aligned table for people, or the value as JSON for scripts. */
export const printRows = (
  flags: RemoteFlags,
  value: unknown,
  rows: ReadonlyArray<Record<string, string | number | boolean | null>>,
) =>
  Effect.sync(() => {
    if (flags.json) {
      console.log(JSON.stringify(value, null, 2))
      return
    }
    if (rows.length === 0) {
      console.log("(nothing)")
      return
    }
    const columns = Object.keys(rows[0]!)
    const cells = rows.map((row) => columns.map((column) => String(row[column] ?? "")))
    const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i]!.length)))
    const line = (values: ReadonlyArray<string>) =>
      values
        .map((value, i) => value.padEnd(widths[i]!))
        .join("  ")
        .trimEnd()
    console.log(line(columns))
    for (const cell of cells) console.log(line(cell))
  })

/** A remote command: an admin session on the running server, its failures explained. */
export const asAdmin = <A, E, R>(flags: RemoteFlags & LocateFlags, use: (session: Session) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(adminSession(flags), (session) => use(session).pipe(explained(session)))
