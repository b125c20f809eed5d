import { bearer, makeTonearmClient, type TonearmClient } from "@tonearm/client-sdk"
import type { LoginUser } from "@tonearm/core"
import { Effect } from "effect"

export const PASSWORD = "correct horse battery"

export interface SignedIn {
  readonly user: LoginUser
  readonly token: string
  readonly client: TonearmClient
}

/** Registers the first account of a fresh server: it becomes admin. */
export const signUpFirstAdmin = (username = "admin", password = PASSWORD) =>
  Effect.gen(function* () {
    const anonymous = yield* makeTonearmClient()
    const result = yield* anonymous.auth.register({ payload: { username, password } })
    const token = result.token!
    return { user: result.user, token, client: yield* makeTonearmClient({ credentials: bearer(token) }) } as SignedIn
  })

/** Signs in with a name and password, returning a bearer client. */
export const logIn = (username: string, password = PASSWORD, headers?: Record<string, string>) =>
  Effect.gen(function* () {
    const anonymous = yield* makeTonearmClient(headers ? { headers } : {})
    const result = yield* anonymous.auth.login({ payload: { username, password } })
    return {
      user: result.user,
      token: result.token,
      client: yield* makeTonearmClient({ credentials: bearer(result.token) }),
    } as SignedIn
  })

/** An admin creates a regular account, which then signs in. */
export const createAndLogIn = (admin: TonearmClient, username: string, options: { isAdmin?: boolean } = {}) =>
  Effect.gen(function* () {
    yield* admin.adminUsers.create({ payload: { username, password: PASSWORD, is_admin: options.isAdmin ?? false } })
    return yield* logIn(username)
  })
