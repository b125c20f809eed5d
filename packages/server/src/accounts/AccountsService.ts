import { SqlClient } from "@effect/sql"
import {
  AdminUserRow,
  Conflict,
  type CreateUserRequest,
  type CurrentSessionShape,
  DebugModeUpdated,
  Forbidden,
  InvalidCredentials,
  InvalidTimezone,
  InvalidToken,
  type LoginRequest,
  LoginUser,
  loadableTimeZone,
  Me,
  NotFound,
  PASSWORD_RESET_TTL_MINUTES,
  Profile,
  type RegisterRequest,
  RegistrationClosed,
  ResetLink,
  type SessionId,
  type SessionUser,
  TimezoneUpdated,
  Unauthenticated,
  type UpdateProfileRequest,
  type UserId,
  Username,
  WrongPassword,
} from "@tonearm/core"
import { DateTime, Effect, Option, Schema } from "effect"
import { currentDate, minutesAfter } from "../clock.js"
import { passwordHashCostOf, TonearmConfig } from "../config/TonearmConfig.js"
import { orInternal } from "../db/sqlErrors.js"
import type { ClientInfo } from "../http/connection.js"
import { AccountLifecycle } from "./AccountLifecycle.js"
import { decoyPasswordHash, hashPassword, hashToken, needsRehash, newToken, verifyPassword } from "./credentials.js"
import { IdentityRepository } from "./IdentityRepository.js"
import { LoginThrottle } from "./LoginThrottle.js"
import { Mailer } from "./Mailer.js"
import { PasswordResetRepository } from "./PasswordResetRepository.js"
import { SessionsService } from "./SessionsService.js"
import { type UserRecord, UserRepository } from "./UserRepository.js"

/** Who an OpenID Connect provider says signed in. */
export interface ExternalIdentity {
  readonly issuer: string
  readonly subject: string
  readonly email?: string | undefined
  readonly emailVerified: boolean
  readonly preferredUsername?: string | undefined
}

const validUsername = Schema.decodeUnknownOption(Username)

/** A username for a new external account: the provider's preferred one, the email's local part, or `user`. */
const externalUsername = (identity: ExternalIdentity): string => {
  const candidates = [identity.preferredUsername, identity.email?.split("@")[0]]
  for (const candidate of candidates) {
    const valid = validUsername(candidate?.slice(0, 56))
    if (Option.isSome(valid)) return valid.value
  }
  return "user"
}

const loginUser = (user: UserRecord) => new LoginUser({ id: user.id, username: user.username, is_admin: user.is_admin })
const sessionUser = (user: UserRecord): SessionUser => ({
  id: user.id,
  username: user.username,
  isAdmin: user.is_admin,
})
const profile = (user: UserRecord) =>
  new Profile({
    id: user.id,
    username: user.username,
    display_name: user.display_name,
    email: user.email,
    is_admin: user.is_admin,
  })

export class AccountsService extends Effect.Service<AccountsService>()("@tonearm/server/AccountsService", {
  effect: Effect.gen(function* () {
    const users = yield* UserRepository
    const resets = yield* PasswordResetRepository
    const sessions = yield* SessionsService
    const throttle = yield* LoginThrottle
    const identities = yield* IdentityRepository
    const mailer = yield* Mailer
    const config = yield* TonearmConfig
    const sql = yield* SqlClient.SqlClient
    const hashCost = passwordHashCostOf(config)
    const decoy = yield* decoyPasswordHash(hashCost)
    const hashOf = (password: string) => hashPassword(password, hashCost)

    /** A password that matched a hash cheaper than the configured cost is stored again at that cost. */
    const upgradeHash = (userId: UserId, stored: string, password: string) =>
      needsRehash(stored, hashCost)
        ? Effect.gen(function* () {
            yield* users.setPasswordHash(userId, yield* hashOf(password), yield* currentDate)
          }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not upgrade a password hash", cause)))
        : Effect.void
    const lifecycle = yield* AccountLifecycle

    /** Tells the other domains (the daily rebuild's scheduler); the account stands whatever they answer. */
    const announceCreated = (user: UserRecord) =>
      lifecycle
        .userCreated(user.id, user.timezone)
        .pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError(`scheduling the daily rebuild of ${user.username} failed; reconciliation retries`, cause),
          ),
        )

    const insertUser = (input: RegisterRequest, isAdmin: boolean) =>
      Effect.gen(function* () {
        return yield* users.insert(
          {
            username: input.username,
            passwordHash: yield* hashOf(input.password),
            email: input.email ?? null,
            displayName: input.display_name ?? null,
            isAdmin,
          },
          yield* currentDate,
        )
      })

    /** An admin creating an account directly (also the CLI's `users create`). */
    const createUser = Effect.fn("AccountsService.createUser")(function* (input: CreateUserRequest) {
      const user = yield* insertUser(input, input.is_admin ?? false)
      yield* announceCreated(user)
      return loginUser(user)
    })

    /**
     * The first account ever is admin. After that, anonymous sign-up needs open registration; an admin
     * caller creates the account without a token, its own session untouched.
     */
    const register = (input: RegisterRequest, caller: CurrentSessionShape | undefined, client: ClientInfo) =>
      Effect.gen(function* () {
        if (caller?.user.isAdmin === true) {
          const created = yield* insertUser(input, false)
          yield* announceCreated(created)
          return { user: loginUser(created), token: undefined }
        }
        // Only an admin registers someone else (contract), open registration or not.
        if (caller !== undefined) {
          return yield* new Forbidden({ message: "only an admin can register other accounts; sign out to sign up" })
        }
        const user = yield* Effect.gen(function* () {
          yield* users.lockSignups
          const first = (yield* users.countUsers) === 0
          if (!first && !config.openRegistration) {
            return yield* new RegistrationClosed({ message: "registration is closed; ask an admin for an account" })
          }
          return yield* insertUser(input, first)
        }).pipe(sql.withTransaction, orInternal("AccountsService.register"))
        yield* announceCreated(user)
        const { token } = yield* sessions.issue(user.id, client)
        return { user: loginUser(user), token }
      }).pipe(Effect.withSpan("AccountsService.register"))

    /** Unknown name and wrong password fail alike, after the same scrypt work. */
    const login = Effect.fn("AccountsService.login")(function* (input: LoginRequest, client: ClientInfo) {
      const attempt = yield* throttle.begin(input.username, client.throttleAddresses)
      const user = yield* users.findByUsername(input.username.trim())
      const matches = yield* verifyPassword(
        input.password,
        Option.match(user, { onNone: () => decoy, onSome: (found) => found.password_hash }),
      )
      if (Option.isNone(user) || !matches) {
        yield* throttle.failed(attempt)
        return yield* new InvalidCredentials({ message: "wrong username or password" })
      }
      yield* throttle.succeeded(attempt)
      yield* upgradeHash(user.value.id, user.value.password_hash, input.password)
      const { token } = yield* sessions.issue(user.value.id, client)
      return { user: loginUser(user.value), token }
    })

    /**
     * The account password check without a session (Subsonic `u`+`p`): the login's throttle and timing, the
     * caller's identity on success.
     */
    const checkPassword = Effect.fn("AccountsService.checkPassword")(function* (
      username: string,
      password: string,
      clientAddresses: ReadonlyArray<string>,
    ) {
      // Checked, not reserved: an app's requests with the right password come many at once (LoginThrottle.check).
      // A wrong one is counted atomically afterwards, so a burst of guesses is verified at most once each.
      yield* throttle.check(username, clientAddresses)
      const user = yield* users.findByUsername(username.trim())
      const matches = yield* verifyPassword(
        password,
        Option.match(user, { onNone: () => decoy, onSome: (found) => found.password_hash }),
      )
      if (Option.isNone(user) || !matches) {
        yield* Effect.flatMap(throttle.begin(username, clientAddresses), throttle.failed)
        return yield* new InvalidCredentials({ message: "wrong username or password" })
      }
      yield* throttle.succeeded({ username, addresses: clientAddresses, ids: [] })
      yield* upgradeHash(user.value.id, user.value.password_hash, password)
      return sessionUser(user.value)
    })

    /**
     * Sign-in by a trusted reverse proxy's user header (the caller checked the feature, the peer and the header): the
     * account of that name, created on first sight (the first account ever is admin, as with registration; open
     * registration is not needed, the proxy vouches). A new account's password is random and unknown: the user signs
     * in through the proxy, or sets one by a reset link.
     */
    const proxySignIn = Effect.fn("AccountsService.proxySignIn")(function* (username: string, client: ClientInfo) {
      const user = yield* Effect.gen(function* () {
        yield* users.lockSignups
        const existing = yield* users.findByUsername(username)
        if (Option.isSome(existing)) return { user: existing.value, created: false }
        const first = (yield* users.countUsers) === 0
        return { user: yield* insertUser({ username, password: newToken() }, first), created: true }
      }).pipe(
        sql.withTransaction,
        orInternal("AccountsService.proxySignIn"),
        // Under the sign-up lock, after a case-insensitive miss, the name cannot be taken.
        Effect.catchTag("Conflict", (conflict) => Effect.die(conflict)),
      )
      if (user.created) {
        yield* Effect.logInfo(`proxy sign-in created the account ${user.user.username}`)
        yield* announceCreated(user.user)
      }
      const { token } = yield* sessions.issue(user.user.id, client)
      return { user: loginUser(user.user), token }
    })

    /**
     * Sign-in by an OpenID Connect identity (issue 29 item 7): the account linked to (issuer, subject); else, on
     * first login, the account holding the provider's email when the provider verified it; else a new account named
     * after the provider's preferred username (or the email's local part), made unique with a number. The link is
     * stored, so later logins find the account by subject even after a rename or an email change.
     */
    const externalSignIn = Effect.fn("AccountsService.externalSignIn")(function* (
      identity: ExternalIdentity,
      client: ClientInfo,
    ) {
      const user = yield* Effect.gen(function* () {
        yield* users.lockSignups
        const linked = yield* identities.userOf(identity.issuer, identity.subject)
        const byEmail =
          linked === undefined && identity.email !== undefined && identity.emailVerified
            ? yield* identities.userByEmail(identity.email)
            : undefined
        const existingId = linked ?? byEmail
        if (existingId !== undefined) {
          const found = yield* users.findById(existingId)
          if (Option.isSome(found)) {
            if (linked === undefined)
              yield* identities.link(identity.issuer, identity.subject, existingId, yield* currentDate)
            return { user: found.value, created: false }
          }
        }
        const base = externalUsername(identity)
        let username = base
        for (let n = 2; Option.isSome(yield* users.findByUsername(username)); n++)
          username = `${base.slice(0, 60)}-${n}`
        const emailFree =
          identity.email !== undefined &&
          identity.emailVerified &&
          (yield* identities.userByEmail(identity.email)) === undefined
        const first = (yield* users.countUsers) === 0
        const created = yield* insertUser(
          { username, password: newToken(), ...(emailFree ? { email: identity.email } : {}) },
          first,
        )
        yield* identities.link(identity.issuer, identity.subject, created.id, yield* currentDate)
        return { user: created, created: true }
      }).pipe(
        sql.withTransaction,
        orInternal("AccountsService.externalSignIn"),
        Effect.catchTag("Conflict", (conflict) => Effect.die(conflict)),
      )
      if (user.created) {
        yield* Effect.logInfo(`OpenID Connect sign-in created the account ${user.user.username}`)
        yield* announceCreated(user.user)
      }
      const { token } = yield* sessions.issue(user.user.id, client)
      return { user: loginUser(user.user), token }
    })

    /** Who a name is, as an authenticated caller (Subsonic token auth, getUser); None if no such user. */
    const userByName = (username: string) => Effect.map(users.findByUsername(username.trim()), Option.map(sessionUser))

    /**
     * Always 202 for the caller (no account enumeration); delivery happens in the background. Limited per address
     * (429) and per account (more requests send nothing).
     */
    const forgotPassword = Effect.fn("AccountsService.forgotPassword")(function* (
      usernameOrEmail: string,
      client: ClientInfo,
    ) {
      yield* throttle.forgotFromAddress(client.throttleAddresses)
      const deliver = Effect.gen(function* () {
        const user = yield* users.findByUsernameOrEmail(usernameOrEmail.trim())
        if (Option.isNone(user)) return
        if (!(yield* throttle.resetMailAllowed(user.value.id))) {
          yield* Effect.logWarning(`password reset for ${user.value.username}: too many requests, no mail sent`)
          return
        }
        const token = newToken()
        const now = yield* currentDate
        yield* resets.prune(now)
        yield* resets.insert({
          tokenHash: hashToken(token),
          userId: user.value.id,
          now,
          expiresAt: minutesAfter(now, PASSWORD_RESET_TTL_MINUTES),
        })
        const link = `${config.publicUrl}/reset-password/${token}`
        const text = `Someone asked to reset the Tonearm password of ${user.value.username}.\nOpen ${link} within ${PASSWORD_RESET_TTL_MINUTES} minutes to choose a new one. If it was not you, ignore this message.`
        const to = user.value.email
        if (to === null) {
          yield* Effect.logWarning(`password reset for ${user.value.username} (no email on file): ${link}`)
        } else {
          yield* mailer.send({ to, subject: "Reset your Tonearm password", text })
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logError("password reset delivery failed", cause)))
      yield* Effect.forkDaemon(deliver)
    })

    const mintResetLink = (userId: UserId) =>
      Effect.gen(function* () {
        const token = newToken()
        const now = yield* currentDate
        const expiresAt = minutesAfter(now, PASSWORD_RESET_TTL_MINUTES)
        yield* resets.insert({ tokenHash: hashToken(token), userId, now, expiresAt })
        return new ResetLink({
          url: `${config.publicUrl}/reset-password/${token}`,
          expires_at: DateTime.unsafeFromDate(expiresAt),
        })
      })

    /** A reset link for an admin to hand over (CLI `users reset-link` with the server stopped). */
    const resetLink = Effect.fn("AccountsService.resetLink")(function* (username: string) {
      const user = yield* users.findByUsername(username)
      if (Option.isNone(user)) return yield* new NotFound({ message: `no user named ${username}`, resource: "user" })
      return (yield* mintResetLink(user.value.id)).url
    })

    /** The same by id, for `POST /api/admin/users/{id}/reset-link`: the link and when it expires. */
    const resetLinkFor = Effect.fn("AccountsService.resetLinkFor")(function* (id: UserId) {
      if (Option.isNone(yield* users.findById(id)))
        return yield* new NotFound({ message: "no such user", resource: "user" })
      return yield* mintResetLink(id)
    })

    /** Single use; every other reset link and every session of the user is revoked. */
    const resetPassword = (token: string, password: string) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const userId = yield* resets.consume(hashToken(token), now)
        if (Option.isNone(userId)) {
          return yield* new InvalidToken({ message: "the reset link is invalid, expired or already used" })
        }
        yield* users.setPasswordHash(userId.value, yield* hashOf(password), now)
        yield* resets.revokeAllFor(userId.value, now)
        yield* sessions.revokeAll(userId.value)
      }).pipe(
        sql.withTransaction,
        orInternal("AccountsService.resetPassword"),
        Effect.withSpan("AccountsService.resetPassword"),
      )

    /** Needs the current password; every other session is revoked, this one stays. */
    const changePassword = Effect.fn("AccountsService.changePassword")(function* (
      userId: UserId,
      sessionId: SessionId,
      current: string,
      next: string,
    ) {
      const user = yield* requireUser(userId)
      if (!(yield* verifyPassword(current, user.password_hash))) {
        return yield* new WrongPassword({ message: "current_password is wrong" })
      }
      const now = yield* currentDate
      yield* users.setPasswordHash(userId, yield* hashOf(next), now)
      // Older reset links must not undo the change (issue 29).
      yield* resets.revokeAllFor(userId, now)
      yield* sessions.revokeAllExcept(userId, sessionId)
    })

    /** The session's user vanished between authentication and now: treat the caller as signed out. */
    const requireUser = (userId: UserId) =>
      users.findById(userId).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new Unauthenticated({ message: "the account no longer exists" })),
            onSome: Effect.succeed,
          }),
        ),
      )

    const me = Effect.fn("AccountsService.me")(function* (userId: UserId) {
      const user = yield* requireUser(userId)
      return new Me({
        ...profile(user),
        debug_mode_enabled: user.debug_mode_enabled,
        timezone: user.timezone,
        timezone_updated_at: user.timezone_updated_at,
      })
    })

    const updateProfile = Effect.fn("AccountsService.updateProfile")(function* (
      userId: UserId,
      input: UpdateProfileRequest,
    ) {
      const updated = yield* users.updateProfile({
        id: userId,
        displayName: input.display_name,
        email: input.email,
        now: yield* currentDate,
      })
      if (Option.isNone(updated)) return yield* new Unauthenticated({ message: "the account no longer exists" })
      return profile(updated.value)
    })

    /** Spec: 400 when the name does not load as a zone; writes the zone and its timezone_updated_at. */
    const setTimezone = Effect.fn("AccountsService.setTimezone")(function* (userId: UserId, name: string) {
      const zone = loadableTimeZone(name)
      if (zone === undefined) {
        return yield* new InvalidTimezone({ message: `${JSON.stringify(name)} is not an IANA time zone name` })
      }
      const now = yield* currentDate
      yield* users.setTimezone(userId, zone, now)
      // Spec: the job is rescheduled synchronously; a failure is logged and the write stays.
      yield* lifecycle
        .timezoneChanged(userId, zone)
        .pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError(`rescheduling the daily rebuild after a timezone change failed (zone ${zone} kept)`, cause),
          ),
        )
      return new TimezoneUpdated({ timezone: zone, timezone_updated_at: DateTime.unsafeFromDate(now) })
    })

    /** When the account was made (play times are clamped to it); None for an unknown user. */
    const accountCreatedAt = (userId: UserId) =>
      Effect.map(
        users.findById(userId),
        Option.map((user) => new Date(DateTime.toEpochMillis(user.created_at))),
      )

    const listUsers = Effect.fn("AccountsService.listUsers")(function* () {
      const rows = yield* users.list
      return rows.map(
        (user) =>
          new AdminUserRow({
            ...profile(user),
            timezone: user.timezone,
            debug_mode_enabled: user.debug_mode_enabled,
            created_at: user.created_at,
          }),
      )
    })

    /** The last admin cannot be deleted: the server would have nobody to administer it. */
    const deleteUser = (id: UserId) =>
      Effect.gen(function* () {
        yield* users.lockSignups
        const target = yield* users.findById(id)
        if (Option.isNone(target)) return yield* new NotFound({ message: "no such user", resource: "user" })
        if (target.value.is_admin && (yield* users.countAdmins) <= 1) {
          return yield* new Conflict({ message: "the last admin account cannot be deleted", reason: "last_admin" })
        }
        yield* users.remove(id)
      }).pipe(
        sql.withTransaction,
        orInternal("AccountsService.deleteUser"),
        Effect.withSpan("AccountsService.deleteUser"),
      )

    const setDebugMode = Effect.fn("AccountsService.setDebugMode")(function* (id: UserId, enabled: boolean) {
      if (!(yield* users.setDebugMode(id, enabled, yield* currentDate))) {
        return yield* new NotFound({ message: "no such user", resource: "user" })
      }
      return new DebugModeUpdated({ id, debug_mode_enabled: enabled })
    })

    return {
      accountCreatedAt,
      register,
      createUser,
      login,
      proxySignIn,
      externalSignIn,
      checkPassword,
      userByName,
      forgotPassword,
      resetLink,
      resetLinkFor,
      resetPassword,
      changePassword,
      me,
      updateProfile,
      setTimezone,
      listUsers,
      deleteUser,
      setDebugMode,
    } as const
  }),
  dependencies: [
    UserRepository.Default,
    PasswordResetRepository.Default,
    SessionsService.Default,
    LoginThrottle.Default,
    IdentityRepository.Default,
  ],
}) {}
