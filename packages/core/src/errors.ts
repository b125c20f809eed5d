import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * Every failure on the wire is `{"error":{"code","message"}}` (contract "Errors"). Each error class
 * carries its code and HTTP status; `envelopeOf` is the schema the HttpApi contract lists, so the server
 * encodes and the typed client decodes one shape.
 */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String }),
})
export type ErrorBody = typeof ErrorBody.Type

export const errorBody = (code: string, message: string): ErrorBody => ({ error: { code, message } })

/** The statics every API error class carries. */
export interface ApiErrorClass<Self> {
  readonly code: string
  readonly status: number
  /** The error a client decodes from the envelope, which carries the message only. */
  readonly fromWire: (message: string) => Self
}

const Message = { message: Schema.String }

// biome-ignore lint/suspicious/noExplicitAny: a TypeScript mixin's base constructor must take `any[]`
type Constructor = new (...args: any[]) => object

/** Attaches the contract code and HTTP status to a tagged error class. */
const coded = <C extends Constructor, const Code extends string>(Base: C, code: Code, status: number) =>
  class extends Base {
    static readonly code: Code = code
    static readonly status: number = status
    /** A class with fields beyond the message overrides this: the envelope does not carry them. */
    static fromWire(message: string): InstanceType<C> {
      return new this({ message }) as InstanceType<C>
    }
  }

export class InvalidRequest extends coded(
  Schema.TaggedError<InvalidRequest>()("InvalidRequest", Message),
  "invalid_request",
  400,
) {}
export class Unauthenticated extends coded(
  Schema.TaggedError<Unauthenticated>()("Unauthenticated", Message),
  "unauthenticated",
  401,
) {}
export class InvalidCredentials extends coded(
  Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", Message),
  "invalid_credentials",
  401,
) {}
export class Forbidden extends coded(Schema.TaggedError<Forbidden>()("Forbidden", Message), "forbidden", 403) {}
export class RegistrationClosed extends coded(
  Schema.TaggedError<RegistrationClosed>()("RegistrationClosed", Message),
  "registration_closed",
  403,
) {}
/**
 * What a `NotFound` names, so an adapter (Subsonic's error 70 "Song not found") picks its answer by type, never by
 * message text. `unknown` is only what a client decodes: the envelope does not carry the resource.
 */
export const NotFoundResource = Schema.Literal(
  "track",
  "album",
  "artist",
  "genre",
  "playlist",
  "playlist_entry",
  "image",
  "lyrics",
  "play",
  "user",
  "session",
  "api_key",
  "request",
  "quarantine_entry",
  "playback_error",
  "rebuild_run",
  "renderer",
  "tag_source",
  "installer",
  "import",
  "scrobbler",
  "library",
  "unknown",
)
export type NotFoundResource = typeof NotFoundResource.Type

export class NotFound extends coded(
  Schema.TaggedError<NotFound>()("NotFound", { ...Message, resource: NotFoundResource }),
  "not_found",
  404,
) {
  static override fromWire(message: string): NotFound {
    return new NotFound({ message, resource: "unknown" })
  }
}
export class MethodNotAllowed extends coded(
  Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", Message),
  "method_not_allowed",
  405,
) {}
/**
 * Why a `Conflict` refuses, so an adapter tells them apart by type (Subsonic: a system playlist is "not
 * authorized", 50). `unknown` is only what a client decodes: the envelope does not carry the reason.
 */
export const ConflictReason = Schema.Literal(
  "system_playlist",
  "smart_playlist",
  "username_taken",
  "email_taken",
  "last_admin",
  "unknown_session",
  "request_state",
  "already_resolved",
  "track_gone",
  "unsafe_path",
  "no_manager",
  "no_matching_file",
  "not_configured",
  "library_path_taken",
  "library_not_scannable",
  "unknown",
)
export type ConflictReason = typeof ConflictReason.Type

export class Conflict extends coded(
  Schema.TaggedError<Conflict>()("Conflict", { ...Message, reason: ConflictReason }),
  "conflict",
  409,
) {
  static override fromWire(message: string): Conflict {
    return new Conflict({ message, reason: "unknown" })
  }
}
export class PayloadTooLarge extends coded(
  Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", Message),
  "payload_too_large",
  413,
) {}
/** 429 with a Retry-After header carrying `retry_after_seconds` (not part of the body). */
export class RateLimited extends coded(
  Schema.TaggedError<RateLimited>()("RateLimited", {
    ...Message,
    retry_after_seconds: Schema.optional(Schema.Int),
  }),
  "rate_limited",
  429,
) {}
export class Internal extends coded(Schema.TaggedError<Internal>()("Internal", Message), "internal", 500) {}
export class InvalidTimezone extends coded(
  Schema.TaggedError<InvalidTimezone>()("InvalidTimezone", Message),
  "invalid_timezone",
  400,
) {}
export class InvalidToken extends coded(
  Schema.TaggedError<InvalidToken>()("InvalidToken", Message),
  "invalid_token",
  400,
) {}
export class WrongPassword extends coded(
  Schema.TaggedError<WrongPassword>()("WrongPassword", Message),
  "wrong_password",
  400,
) {}
export class ConflictingFilters extends coded(
  Schema.TaggedError<ConflictingFilters>()("ConflictingFilters", Message),
  "conflicting_filters",
  400,
) {}
export class InvertedYearRange extends coded(
  Schema.TaggedError<InvertedYearRange>()("InvertedYearRange", Message),
  "inverted_year_range",
  400,
) {}
export class InvalidTrackId extends coded(
  Schema.TaggedError<InvalidTrackId>()("InvalidTrackId", Message),
  "invalid_track_id",
  400,
) {}
/** Contract: a non-singleton or unknown system kind on refresh/shuffle routes is 404 `not_refreshable`. */
export class NotRefreshable extends coded(
  Schema.TaggedError<NotRefreshable>()("NotRefreshable", Message),
  "not_refreshable",
  404,
) {}
/** An unknown diagnostic or playback-error kind (spec "Errors"). */
export class UnknownKind extends coded(
  Schema.TaggedError<UnknownKind>()("UnknownKind", Message),
  "unknown_kind",
  400,
) {}
/** Saving the manager without a root folder and both profile ids (spec "Errors"). */
export class MissingDefaults extends coded(
  Schema.TaggedError<MissingDefaults>()("MissingDefaults", Message),
  "missing_defaults",
  400,
) {}
export class ServiceUnavailable extends coded(
  Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", Message),
  "service_unavailable",
  503,
) {}
/**
 * The database does not answer (an outage, a restart): 503 with a Retry-After header carrying
 * `retry_after_seconds`, quickly, instead of a hang or a 500 (issue 29 item 3).
 */
export class DatabaseUnavailable extends coded(
  Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
    ...Message,
    retry_after_seconds: Schema.optional(Schema.Int),
  }),
  "unavailable",
  503,
) {}

/** A network speaker did not answer in time, or could not be reached (cast routes). */
export class RendererUnreachable extends coded(
  Schema.TaggedError<RendererUnreachable>()("RendererUnreachable", Message),
  "renderer_unreachable",
  502,
) {}
/** A network speaker answered a cast action with a SOAP fault or something unreadable. */
export class RendererError extends coded(
  Schema.TaggedError<RendererError>()("RendererError", Message),
  "renderer_error",
  502,
) {}

/** Every API error class: the one list the `ApiError` union comes from. */
export const API_ERRORS = [
  InvalidRequest,
  Unauthenticated,
  InvalidCredentials,
  Forbidden,
  RegistrationClosed,
  NotFound,
  MethodNotAllowed,
  Conflict,
  PayloadTooLarge,
  RateLimited,
  Internal,
  InvalidTimezone,
  InvalidToken,
  WrongPassword,
  ServiceUnavailable,
  DatabaseUnavailable,
  ConflictingFilters,
  InvertedYearRange,
  InvalidTrackId,
  NotRefreshable,
  UnknownKind,
  MissingDefaults,
  RendererUnreachable,
  RendererError,
] as const

export type ApiError = InstanceType<(typeof API_ERRORS)[number]>

const envelopes = new WeakMap<object, Schema.Schema.Any>()

/** The wire schema of an error class: the envelope with its code, annotated with its status. */
export const envelopeOf = <Self extends { readonly message: string }, I>(
  cls: Schema.Schema<Self, I, never> & ApiErrorClass<NoInfer<Self>>,
): Schema.Schema<Self, ErrorBody, never> => {
  const cached = envelopes.get(cls)
  if (cached) return cached as unknown as Schema.Schema<Self, ErrorBody, never>
  const wire = Schema.transform(
    Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(cls.code), message: Schema.String }) }),
    Schema.typeSchema(cls),
    {
      strict: false,
      decode: (body) => cls.fromWire(body.error.message),
      encode: (error) => errorBody(cls.code, error.message),
    },
  ).annotations({
    ...HttpApiSchema.annotations({ status: cls.status }),
    identifier: `${cls.code}_error`,
    description: `{"error":{"code":"${cls.code}"}}`,
  })
  envelopes.set(cls, wire)
  return wire as unknown as Schema.Schema<Self, ErrorBody, never>
}

/** The code and status of a value when it is one of the API errors above. */
export const apiErrorInfo = (
  error: unknown,
): { code: string; status: number; message: string; retryAfterSeconds?: number } | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const ctor = (error as { constructor?: Partial<ApiErrorClass<unknown>> }).constructor
  if (typeof ctor?.code !== "string" || typeof ctor.status !== "number") return undefined
  const { message, retry_after_seconds } = error as { message?: unknown; retry_after_seconds?: unknown }
  return {
    code: ctor.code,
    status: ctor.status,
    message: typeof message === "string" ? message : ctor.code,
    ...(typeof retry_after_seconds === "number" ? { retryAfterSeconds: retry_after_seconds } : {}),
  }
}
