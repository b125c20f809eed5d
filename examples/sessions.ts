/**
 * Signs in to a running Tonearm server and prints your sessions, the way a "devices" settings page would.
 *
 *   TONEARM_URL=http://localhost:4533 TONEARM_USER=ada TONEARM_PASSWORD='…' pnpm --filter tonearm-examples sessions
 */
import { FetchHttpClient } from "@effect/platform"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { Config, DateTime, Effect } from "effect"

const program = Effect.gen(function* () {
  const baseUrl = yield* Config.string("TONEARM_URL").pipe(Config.withDefault("http://localhost:4533"))
  const username = yield* Config.string("TONEARM_USER")
  const password = yield* Config.string("TONEARM_PASSWORD")

  const anonymous = yield* makeTonearmClient({ baseUrl })
  const { user, token } = yield* anonymous.auth.login({ payload: { username, password } })
  const client = yield* makeTonearmClient({ baseUrl, credentials: bearer(token) })

  const sessions = yield* client.me.listSessions()
  yield* Effect.log(`${user.username}${user.is_admin ? " (admin)" : ""} has ${sessions.length} session(s)`)
  for (const session of sessions) {
    const seen = DateTime.formatIso(session.last_seen_at)
    yield* Effect.log(
      `${session.current ? "*" : " "} ${session.user_agent || "unknown client"} from ${session.last_ip}, last seen ${seen}`,
    )
  }
  // Sign this example's own session out again.
  yield* client.auth.logout()
})

program.pipe(
  Effect.provide(FetchHttpClient.layer),
  Effect.catchAll((error) => Effect.logError(`failed: ${"message" in error ? error.message : String(error)}`)),
  Effect.runPromise,
)
