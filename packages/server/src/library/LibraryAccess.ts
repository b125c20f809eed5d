import { CurrentSession, type SessionUser } from "@tonearm/core"
import { Clock, Effect, FiberRef, Option } from "effect"
import { EVERY_LIBRARY, type LibraryScope, narrowScope } from "../db/libraryScope.js"
import { LibrariesRepository } from "./LibrariesRepository.js"

/** How long a listener's library set is kept before it is read again (another replica may have changed it). */
export const ACCESS_KEPT_MS = 5_000

/**
 * Who is reading, for routes that sign in without the contract's session (Subsonic, streams): set around the work
 * with `LibraryAccess.asCaller`. The contract's routes need nothing: their `CurrentSession` is read.
 */
const callerRef = FiberRef.unsafeMake<SessionUser | undefined>(undefined)
/** A library set given outright (work done for a user named by id: a rebuild): wins over the caller. */
const scopeRef = FiberRef.unsafeMake<LibraryScope | undefined>(undefined)
/** The browse routes' `library_id`: one library of the caller's. */
const narrowedRef = FiberRef.unsafeMake<number | undefined>(undefined)

/**
 * The caller's library set (contract "Multiple libraries"): what every catalogue read goes through. No caller
 * (background work: scans, the engine, rebuilds) and admins see every library; a listener, the libraries given to
 * them that are present. A listener who hears every present library gets `EVERY_LIBRARY`, so their reads and
 * kept answers are those of a single-library server.
 */
export class LibraryAccess extends Effect.Service<LibraryAccess>()("@tonearm/server/LibraryAccess", {
  effect: Effect.gen(function* () {
    const libraries = yield* LibrariesRepository
    const kept = new Map<string, { readonly scope: LibraryScope; readonly at: number }>()

    const read = (userId: string) =>
      Effect.gen(function* () {
        const [given, active] = yield* Effect.all([libraries.userLibraryIds(userId), libraries.activeIds], {
          concurrency: 2,
        })
        const heard = active.filter((id) => given.includes(id))
        return heard.length === active.length ? EVERY_LIBRARY : { ids: heard }
      })

    /** A user's library set (admins: every library). */
    const forUser = (user: Pick<SessionUser, "id" | "isAdmin">) =>
      user.isAdmin
        ? Effect.succeed(EVERY_LIBRARY)
        : Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const entry = kept.get(user.id)
            if (entry !== undefined && now - entry.at < ACCESS_KEPT_MS) return entry.scope
            const scope = yield* read(user.id)
            kept.set(user.id, { scope, at: now })
            return scope
          })

    /** The current caller's library set, narrowed to the route's `library_id` when one was given. */
    const current = Effect.gen(function* () {
      const given = yield* FiberRef.get(scopeRef)
      if (given !== undefined) return narrowScope(given, yield* FiberRef.get(narrowedRef))
      const caller =
        (yield* FiberRef.get(callerRef)) ??
        Option.getOrUndefined(Option.map(yield* Effect.serviceOption(CurrentSession), (session) => session.user))
      const scope = caller === undefined ? EVERY_LIBRARY : yield* forUser(caller)
      return narrowScope(scope, yield* FiberRef.get(narrowedRef))
    })

    /**
     * The library set of a user named by id, for work done for them without their session (a smart playlist's
     * refresh, a recommendation rebuild): what that user may hear, whoever runs it. An unknown user hears nothing.
     */
    const forUserId = (userId: string) =>
      Effect.flatMap(libraries.userIsAdmin(userId), (isAdmin) =>
        isAdmin === undefined
          ? Effect.succeed<LibraryScope>({ ids: [] })
          : forUser({ id: userId as SessionUser["id"], isAdmin }),
      )

    /** Forgets kept sets: after any change of libraries or access on this server. */
    const forget = Effect.sync(() => kept.clear())

    return { current, forUser, forUserId, forget } as const
  }),
  dependencies: [LibrariesRepository.Default],
}) {
  /** Runs `effect` as `user` (Subsonic, streams): its catalogue reads see that user's libraries. */
  static asCaller =
    (user: SessionUser | undefined) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.locally(effect, callerRef, user)

  /** Runs `effect` reading the catalogue of this library set (`forUserId`'s: a user's background work). */
  static withScope =
    (scope: LibraryScope) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.locally(effect, scopeRef, scope)

  /** Runs `effect` with the caller's libraries narrowed to one (`library_id`; undefined: no narrowing). */
  static within =
    (libraryId: number | undefined) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      libraryId === undefined ? effect : Effect.locally(effect, narrowedRef, libraryId)
}
