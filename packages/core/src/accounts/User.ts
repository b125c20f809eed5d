import { Schema } from "effect"
import { UserId } from "../ids.js"
import { weakPasswordReason } from "./passwordPolicy.js"

/** 1–64 characters, surrounding whitespace trimmed, none inside, no control characters. */
export const Username = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "username must not be empty" }),
  Schema.maxLength(64, { message: () => "username must be at most 64 characters" }),
  Schema.pattern(/^[^\s\p{Cc}]+$/u, { message: () => "username must not contain whitespace or control characters" }),
)

/** Password policy (contract): 8 to 256 characters; and none that is blank or among the most common (issue 29). */
export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 256
export const Password = Schema.String.pipe(
  Schema.minLength(PASSWORD_MIN_LENGTH, {
    message: () => `password must be at least ${PASSWORD_MIN_LENGTH} characters`,
  }),
  Schema.maxLength(PASSWORD_MAX_LENGTH, {
    message: () => `password must be at most ${PASSWORD_MAX_LENGTH} characters`,
  }),
  Schema.filter((password) => weakPasswordReason(password) ?? true),
)

const EMAIL = /^[^\s@]+@[^\s@]+$/

/** An optional text field where the empty string (after trimming) means "clear it" (spec: PUT /api/me/profile). */
const clearable = <A extends string, I extends string>(schema: Schema.Schema<A, I>) =>
  Schema.transform(Schema.NullOr(Schema.String), Schema.NullOr(Schema.String), {
    strict: true,
    decode: (value) => (value === null || value.trim() === "" ? null : value.trim()),
    encode: (value) => value,
  }).pipe(Schema.compose(Schema.NullOr(schema)))

export const DisplayName = clearable(
  Schema.String.pipe(Schema.maxLength(128, { message: () => "display_name must be at most 128 characters" })),
)
export const Email = clearable(
  Schema.String.pipe(
    Schema.maxLength(254, { message: () => "email must be at most 254 characters" }),
    Schema.pattern(EMAIL, { message: () => "email must look like name@host" }),
  ),
)

/** Login user view (spec "Account and session"). */
export class LoginUser extends Schema.Class<LoginUser>("LoginUser")({
  id: UserId,
  username: Schema.String,
  is_admin: Schema.Boolean,
}) {}

/** Profile view: the response of PUT /api/me/profile. */
export const ProfileFields = {
  id: UserId,
  username: Schema.String,
  display_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  is_admin: Schema.Boolean,
}
export class Profile extends Schema.Class<Profile>("Profile")(ProfileFields) {}

/** GET /api/me: the profile view plus the client gate and time zone. */
export class Me extends Schema.Class<Me>("Me")({
  ...ProfileFields,
  debug_mode_enabled: Schema.Boolean,
  timezone: Schema.String,
  timezone_updated_at: Schema.NullOr(Schema.DateTimeUtc),
}) {}

/** A row of GET /api/admin/users. */
export class AdminUserRow extends Schema.Class<AdminUserRow>("AdminUserRow")({
  ...ProfileFields,
  timezone: Schema.String,
  debug_mode_enabled: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
}) {}

export const RegisterRequest = Schema.Struct({
  username: Username,
  password: Password,
  email: Schema.optional(Email),
  display_name: Schema.optional(DisplayName),
})
export type RegisterRequest = typeof RegisterRequest.Type

export const CreateUserRequest = Schema.Struct({
  ...RegisterRequest.fields,
  is_admin: Schema.optional(Schema.Boolean),
})
export type CreateUserRequest = typeof CreateUserRequest.Type

export const LoginRequest = Schema.Struct({
  username: Schema.String.pipe(Schema.maxLength(256)),
  password: Schema.String.pipe(Schema.maxLength(PASSWORD_MAX_LENGTH)),
})
export type LoginRequest = typeof LoginRequest.Type

/** Login and anonymous registration: the user and a bearer token (the cookie carries the same token). */
export class AuthResult extends Schema.Class<AuthResult>("AuthResult")({
  user: LoginUser,
  token: Schema.String,
}) {}

/** Registration by an admin returns no token: the admin's own session is unchanged. */
export class RegisterResult extends Schema.Class<RegisterResult>("RegisterResult")({
  user: LoginUser,
  token: Schema.optional(Schema.String),
}) {}

export class CreatedUser extends Schema.Class<CreatedUser>("CreatedUser")({ user: LoginUser }) {}

/** POST /api/admin/users/{id}/reset-link: a single-use link on the server's public URL, for an admin to hand over. */
export class ResetLink extends Schema.Class<ResetLink>("ResetLink")({
  url: Schema.String,
  expires_at: Schema.DateTimeUtc,
}) {}

export const ForgotPasswordRequest = Schema.Struct({
  username_or_email: Schema.String.pipe(Schema.maxLength(256)),
})
export const ResetPasswordRequest = Schema.Struct({
  token: Schema.String.pipe(Schema.maxLength(512)),
  password: Password,
})
export const ChangePasswordRequest = Schema.Struct({
  current_password: Schema.String.pipe(Schema.maxLength(PASSWORD_MAX_LENGTH)),
  new_password: Password,
})

export const UpdateProfileRequest = Schema.Struct({
  display_name: Schema.optional(DisplayName),
  email: Schema.optional(Email),
})
export type UpdateProfileRequest = typeof UpdateProfileRequest.Type

export const TimezoneRequest = Schema.Struct({ timezone: Schema.String.pipe(Schema.maxLength(128)) })
export class TimezoneUpdated extends Schema.Class<TimezoneUpdated>("TimezoneUpdated")({
  timezone: Schema.String,
  timezone_updated_at: Schema.DateTimeUtc,
}) {}

export const DebugModeRequest = Schema.Struct({ enabled: Schema.Boolean })
export class DebugModeUpdated extends Schema.Class<DebugModeUpdated>("DebugModeUpdated")({
  id: UserId,
  debug_mode_enabled: Schema.Boolean,
}) {}
