import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  Conflict,
  envelopeOf,
  Forbidden,
  InvalidCredentials,
  InvalidRequest,
  InvalidTimezone,
  InvalidToken,
  NotFound,
  RateLimited,
  RegistrationClosed,
  ServiceUnavailable,
  WrongPassword,
} from "../errors.js"
import { AdminAuthentication, Authentication, CallerIfAny } from "../http/Authentication.js"
import { SessionId, UserId } from "../ids.js"
import { LogoutOthersResult, SessionRow } from "./Session.js"
import {
  AdminUserRow,
  AuthResult,
  ChangePasswordRequest,
  CreatedUser,
  CreateUserRequest,
  DebugModeRequest,
  DebugModeUpdated,
  ForgotPasswordRequest,
  LoginRequest,
  Me,
  Profile,
  RegisterRequest,
  RegisterResult,
  ResetLink,
  ResetPasswordRequest,
  TimezoneRequest,
  TimezoneUpdated,
  UpdateProfileRequest,
} from "./User.js"

/** Sign-in ways besides a password, for the sign-in page's buttons. */
export class SignInOptions extends Schema.Class<SignInOptions>("SignInOptions")({
  oidc: Schema.NullOr(Schema.Struct({ name: Schema.String })),
  /**
   * Set when this request came through a trusted reverse proxy that names a user (TONEARM_PROXY_AUTH_HEADER): who,
   * and whether the sign-in page may sign in as them on its own (false after an explicit sign-out in this browser:
   * the page then offers a button instead of signing straight back in).
   */
  proxy: Schema.NullOr(Schema.Struct({ username: Schema.String, automatic: Schema.Boolean })),
}) {}

/** What an OpenID Connect provider sends back to the redirect URL (RFC 6749 §4.1.2). */
export const OidcCallbackParams = Schema.Struct({
  code: Schema.optional(Schema.String),
  state: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
  iss: Schema.optional(Schema.String),
  session_state: Schema.optional(Schema.String),
})

const sessionId = HttpApiSchema.param("id", SessionId)
const userId = HttpApiSchema.param("id", UserId)

/** Sign-up, sign-in and password recovery: open to anyone. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("register", "/api/auth/register")
      .setPayload(RegisterRequest)
      .addSuccess(RegisterResult, { status: 201 })
      .addError(envelopeOf(RegistrationClosed))
      .addError(envelopeOf(Forbidden))
      .addError(envelopeOf(Conflict))
      .middleware(CallerIfAny)
      .annotate(
        OpenApi.Description,
        "The first account ever is admin. Later, anonymous sign-up needs TONEARM_OPEN_REGISTRATION=true; an admin caller creates an account without signing in as it; a signed-in non-admin caller is refused (403 forbidden).",
      ),
  )
  .add(
    HttpApiEndpoint.post("login", "/api/auth/login")
      .setPayload(LoginRequest)
      .addSuccess(AuthResult)
      .addError(envelopeOf(InvalidCredentials))
      .addError(envelopeOf(RateLimited)),
  )
  .add(
    HttpApiEndpoint.post("proxyLogin", "/api/auth/proxy-login")
      .addSuccess(AuthResult)
      .addError(envelopeOf(Forbidden))
      .annotate(
        OpenApi.Description,
        "Signs in as the user a trusted reverse proxy names in TONEARM_PROXY_AUTH_HEADER (off by default; honoured only from a socket peer in TONEARM_TRUSTED_PROXIES). The account is created on first sight. 403 forbidden when the feature is off, the peer is not a listed proxy, or the header is absent.",
      ),
  )
  .add(
    HttpApiEndpoint.get("signInOptions", "/api/auth/options")
      .addSuccess(SignInOptions)
      .annotate(
        OpenApi.Description,
        "How the sign-in page may sign in besides a password: the OpenID Connect provider's name, or null; the user a trusted reverse proxy names for this request (and whether to sign in as them without a click: not after an explicit sign-out), or null.",
      ),
  )
  .add(
    HttpApiEndpoint.get("oidcStart", "/api/auth/oidc/start")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(
        OpenApi.Description,
        "302 to the OpenID Connect provider (authorization code with PKCE, state and nonce); 404 when none is configured.",
      ),
  )
  .add(
    HttpApiEndpoint.get("oidcCallback", "/api/auth/oidc/callback")
      .setUrlParams(OidcCallbackParams)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(InvalidRequest))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(
        OpenApi.Description,
        "The provider's redirect: checks state (single use, bound to this browser), PKCE and nonce, signs in as the linked account (created on first login, or linked by verified email), sets the session cookie and 302s to /. 400 invalid_request for a bad or replayed state or code.",
      ),
  )
  .add(
    HttpApiEndpoint.get("oidcLogout", "/api/auth/oidc/logout")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(
        OpenApi.Description,
        "After POST /api/auth/logout, a browser signed in through OpenID Connect comes here: 302 to the provider's end_session_endpoint (RP-initiated logout, back to /) when it advertises one, else 302 to /. 404 when OpenID Connect is not configured.",
      ),
  )
  .add(
    HttpApiEndpoint.post("logout", "/api/auth/logout").addSuccess(HttpApiSchema.NoContent).middleware(Authentication),
  )
  .add(
    HttpApiEndpoint.post("forgotPassword", "/api/auth/forgot-password")
      .setPayload(ForgotPasswordRequest)
      .addSuccess(HttpApiSchema.Accepted)
      .addError(envelopeOf(RateLimited)),
  )
  .add(
    HttpApiEndpoint.post("resetPassword", "/api/auth/reset-password")
      .setPayload(ResetPasswordRequest)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(InvalidToken)),
  )
  .annotate(OpenApi.Title, "Authentication") {}

/** The caller's own account and sessions. */
export class MeApi extends HttpApiGroup.make("me")
  .add(HttpApiEndpoint.get("get", "/api/me").addSuccess(Me))
  .add(
    HttpApiEndpoint.put("updateProfile", "/api/me/profile")
      .setPayload(UpdateProfileRequest)
      .addSuccess(Profile)
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.put("setTimezone", "/api/me/timezone")
      .setPayload(TimezoneRequest)
      .addSuccess(TimezoneUpdated)
      .addError(envelopeOf(InvalidTimezone)),
  )
  .add(
    HttpApiEndpoint.put("changePassword", "/api/me/password")
      .setPayload(ChangePasswordRequest)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(WrongPassword)),
  )
  .add(HttpApiEndpoint.get("listSessions", "/api/me/sessions").addSuccess(Schema.Array(SessionRow)))
  .add(
    HttpApiEndpoint.del("deleteSession")`/api/me/sessions/${sessionId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.post("logoutOthers", "/api/me/sessions/logout-others")
      .addSuccess(LogoutOthersResult)
      .addError(envelopeOf(Conflict)),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Account and sessions") {}

/** Account administration. */
export class AdminUsersApi extends HttpApiGroup.make("adminUsers")
  .add(HttpApiEndpoint.get("list", "/api/admin/users").addSuccess(Schema.Array(AdminUserRow)))
  .add(
    HttpApiEndpoint.post("create", "/api/admin/users")
      .setPayload(CreateUserRequest)
      .addSuccess(CreatedUser, { status: 201 })
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.del("delete")`/api/admin/users/${userId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.post("resetLink")`/api/admin/users/${userId}/reset-link`
      .addSuccess(ResetLink)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Mints a single-use password-reset link (one hour) on the server's public URL, for the admin to hand over (CLI `users reset-link`).",
      ),
  )
  .add(
    HttpApiEndpoint.put("setDebugMode")`/api/admin/users/${userId}/debug-mode`
      .setPayload(DebugModeRequest)
      .addSuccess(DebugModeUpdated)
      .addError(envelopeOf(NotFound)),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: users") {}
