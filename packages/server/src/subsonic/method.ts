import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  missingParameter,
  type NotFoundResource,
  type SessionUser,
  type SubsonicFailure,
  type SubsonicPayload,
} from "@tonearm/core"
import { Effect, Schema, type Scope } from "effect"
import type { AccountsService } from "../accounts/index.js"
import type { ChangeLog } from "../changes/index.js"
import type { CoverService, LibrariesService, LibraryService, LyricsService, ScanService } from "../library/index.js"
import type { LikesService, PlaysService, RatingsService } from "../listening/index.js"
import type { PlaylistCover, PlaylistsService } from "../playlists/index.js"
import type { PlayQueueService } from "../playqueue/index.js"
import type { RadioService, SimilarArtistsService } from "../recommendations/index.js"
import type { StreamService } from "../streaming/index.js"
import { notFound } from "./failures.js"
import type { SubsonicParams } from "./params.js"

/** The domain services Subsonic methods answer from (the JSON API's own). */
export type SubsonicServices =
  | AccountsService
  | ChangeLog
  | CoverService
  | LibraryService
  | LibrariesService
  | LikesService
  | LyricsService
  | PlayQueueService
  | PlaysService
  | PlaylistCover
  | PlaylistsService
  | RadioService
  | RatingsService
  | ScanService
  | SimilarArtistsService
  | StreamService

/** A method's answer: a payload for the envelope, or a response of its own (audio, images). */
export type MethodAnswer = SubsonicPayload | HttpServerResponse.HttpServerResponse

export type MethodEffect = Effect.Effect<
  MethodAnswer,
  unknown,
  SubsonicServices | HttpServerRequest.HttpServerRequest | Scope.Scope
>

/** How one parameter is read from the query and form: its value, or the Subsonic error it answers. */
export interface Param<A> {
  readonly read: (params: SubsonicParams, name: string) => Effect.Effect<A, SubsonicFailure>
}

const kind = <A>(read: Param<A>["read"]): Param<A> => ({ read })
const isUuid = Schema.is(Schema.UUID)
/** A Subsonic id that is not one of ours can't name anything: 70, never a database error. */
const uuidOr70 = (resource: NotFoundResource) => (raw: string) =>
  isUuid(raw) ? Effect.succeed(raw) : Effect.fail(notFound(resource))

/** The parameter kinds (an empty value counts as absent except for `given` and `allGiven`). */
export const param = {
  /** Error 10 when absent or empty. */
  required: kind((params, name) => params.required(name)),
  optional: kind((params, name) => Effect.succeed(params.get(name))),
  /** Sent, even empty (`comment=` clears a comment). */
  given: kind((params, name) => Effect.succeed(params.given(name))),
  /** Required, but an empty value is a value (`query=` lists everything). */
  givenRequired: kind((params, name) => {
    const value = params.given(name)
    return value === undefined ? Effect.fail(missingParameter(name)) : Effect.succeed(value)
  }),
  /** Every non-empty value of a repeated parameter. */
  all: kind((params, name) => Effect.succeed(params.all(name))),
  /** Every value, empty ones included, for parameters paired by position. */
  allGiven: kind((params, name) => Effect.succeed(params.allGiven(name))),
  /** An integer (error 0 naming it when it is not one), `fallback` when absent. */
  int: (fallback: number) => kind((params, name) => params.int(name, fallback)),
  optionalInt: kind((params, name) => params.int(name)),
  requiredInt: kind((params, name) => params.requiredInt(name)),
  bool: (fallback: boolean) => kind((params, name) => Effect.succeed(params.bool(name, fallback))),
  /** A required id of ours: error 70 for `resource` when it is not a UUID. */
  id: (resource: NotFoundResource) => kind((params, name) => Effect.flatMap(params.required(name), uuidOr70(resource))),
  /** A repeated id of ours, each a UUID or error 70 for `resource`. */
  ids: (resource: NotFoundResource) => kind((params, name) => Effect.forEach(params.all(name), uuidOr70(resource))),
  /** Read only when the method needs it (byYear's years): its errors come when, and if, it is yielded. */
  later: <A>(inner: Param<A>) => kind((params, name) => Effect.succeed(inner.read(params, name))),
} as const

export type ParamSpec = Readonly<Record<string, Param<unknown>>>
export type ParamsOf<P extends ParamSpec> = { readonly [K in keyof P]: P[K] extends Param<infer A> ? A : never }

/** One Subsonic method: its name, its parameters and its handler, registered in one place. */
export interface SubsonicMethod {
  readonly name: string
  /** Answered without credentials or a protocol-version check (getOpenSubsonicExtensions). */
  readonly anonymous: boolean
  readonly params: ParamSpec
  readonly run: (user: SessionUser | undefined, params: SubsonicParams) => MethodEffect
}

/** Reads `spec` in its order (so the first bad parameter is the one named), then runs the handler. */
export const decodeParams = <P extends ParamSpec>(spec: P, params: SubsonicParams) =>
  Effect.gen(function* () {
    const decoded: Record<string, unknown> = {}
    for (const [name, kindOf] of Object.entries(spec)) decoded[name] = yield* kindOf.read(params, name)
    return decoded as ParamsOf<P>
  })

/** A method that answers a signed-in user. */
export const method = <const P extends ParamSpec>(
  name: string,
  params: P,
  handler: (user: SessionUser, params: ParamsOf<P>) => MethodEffect,
): SubsonicMethod => ({
  name,
  anonymous: false,
  params,
  run: (user, raw) =>
    user === undefined
      ? Effect.dieMessage(`subsonic ${name} ran without a user`)
      : Effect.flatMap(decodeParams(params, raw), (decoded) => handler(user, decoded)),
})

/** A method that answers anyone, before credentials are read. */
export const anonymousMethod = <const P extends ParamSpec>(
  name: string,
  params: P,
  handler: (params: ParamsOf<P>) => MethodEffect,
): SubsonicMethod => ({
  name,
  anonymous: true,
  params,
  run: (_, raw) => Effect.flatMap(decodeParams(params, raw), handler),
})
