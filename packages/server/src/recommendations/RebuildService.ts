import { SqlClient } from "@effect/sql"
import type { SystemVariant, UserId } from "@tonearm/core"
import { minimumMixSize, type Surface, withMinimum } from "@tonearm/recommend"
import { Cause, Effect, Ref } from "effect"
import { AccountsService } from "../accounts/index.js"
import { ChangeLog } from "../changes/index.js"
import { currentDate, daysBefore } from "../clock.js"
import type { LibraryScope } from "../db/libraryScope.js"
import { orInternal } from "../db/sqlErrors.js"
import { EnrichmentService } from "../enrichment/index.js"
import { EventBus } from "../events/index.js"
import { LibraryAccess, LibraryService } from "../library/index.js"
import { LikesService, PlaysService } from "../listening/index.js"
import { rebuildDuration, rebuildFailures } from "../metrics.js"
import { QuarantineService } from "../moderation/index.js"
import { PlaylistsService, type SystemSnapshot } from "../playlists/index.js"
import { RebuildJobRepository } from "./RebuildJobRepository.js"
import {
  type CatalogSource,
  type EngineInput,
  RecommendationEngine,
  type SharedPlayCounts,
} from "./RecommendationEngine.js"
import { SnoozeRepository } from "./SnoozeRepository.js"
import { TasteProfileRepository } from "./TasteProfileRepository.js"
import { TuningService } from "./TuningService.js"
import { YouMightLikeRepository } from "./YouMightLikeRepository.js"

/** Other users' plays count toward popularity and the Discover cross-user bucket over this window. */
const SHARED_SIGNAL_DAYS = 30
/** The server-wide play counts are recounted at most this often (a nightly run reuses one count). */
const SHARED_SIGNAL_TTL_MS = 10 * 60_000

const FIXED_NAMES: Partial<Record<SystemVariant, string>> = {
  for_you: "For You",
  discover: "Discover",
  new_for_you: "New for you",
  first_listens: "First listens",
  rediscover: "Rediscover",
  on_repeat: "On repeat",
}

/**
 * The label of a mix built before the cold-start gate (issue 28), as the playlist's `description`: the line a
 * Spotify or Plexamp listener reads under a mix's title, saying what it is made of and that it will change.
 */
export const STARTER_MIX_DESCRIPTION =
  "Starter mix: built from your likes, your first plays and what is popular here. It gets more personal as you listen."

/** What a client shows on the unlock placeholder of a withheld mix. */
export const lockedReasonOf = (variant: SystemVariant, name: string): string => {
  const minimum = minimumMixSize(variant)
  // A mix with no minimum is withheld only when it would repeat another mix track for track (issue 28).
  if (minimum === 0) return `${name} unlocks once it has tracks of its own, not the same list as another mix.`
  return variant === "new_for_you" || variant === "first_listens"
    ? `${name} unlocks once at least ${minimum} tracks you have not heard match your taste.`
    : `${name} unlocks once Tonearm knows your taste a little better: keep listening, it needs at least ${minimum} tracks to pick from.`
}

/**
 * The daily rebuild of one user (spec "System snapshot"): taste profile, every system playlist and the
 * You-might-like rows, computed by the engine and replaced in one transaction (a reader never sees half a
 * rebuild), then `playlist.system_rebuilt` on that user's stream.
 */
export class RebuildService extends Effect.Service<RebuildService>()("@tonearm/server/RebuildService", {
  effect: Effect.gen(function* () {
    const engine = yield* RecommendationEngine
    const library = yield* LibraryService
    const enrichment = yield* EnrichmentService
    const plays = yield* PlaysService
    const likes = yield* LikesService
    const accounts = yield* AccountsService
    const playlists = yield* PlaylistsService
    const quarantine = yield* QuarantineService
    const profiles = yield* TasteProfileRepository
    const youMightLike = yield* YouMightLikeRepository
    const snoozes = yield* SnoozeRepository
    const tuning = yield* TuningService
    const changes = yield* ChangeLog
    const events = yield* EventBus
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* RebuildJobRepository
    const access = yield* LibraryAccess

    /** The library as the engine reads it; the version lets the engine keep its prepared catalog. */
    // Enriched tags ride on the catalog's tracks (the profile's tag and mood weights); their revision is part of
    // the version so the engine re-prepares its catalog when enrichment adds tags.
    const catalogSource: Effect.Effect<CatalogSource, import("@tonearm/core").Internal> = Effect.map(
      Effect.all([changes.libraryVersion, enrichment.tagsRevision]),
      ([version, tags]) => ({
        version: `${version}:${tags}`,
        // Both undecoded: the engine's thread decodes the text and merges the tags into the tracks.
        load: Effect.map(
          Effect.all([library.catalogText, enrichment.catalogTags], { concurrency: 2 }),
          ([tracks, tags]) => ({ ...tracks, tags }),
        ),
      }),
    )

    const shared = yield* Ref.make<{ readonly at: number; readonly counts: SharedPlayCounts } | undefined>(undefined)
    /**
     * Everyone's unskipped plays per track over the window, counted once for many users. Each user's
     * popularity and crossUser are derived from it by the engine (on its worker, which gets it once).
     */
    const sharedCounts = Effect.gen(function* () {
      const now = yield* currentDate
      const hit = yield* Ref.get(shared)
      if (hit !== undefined && now.getTime() - hit.at < SHARED_SIGNAL_TTL_MS) return hit.counts
      const since = daysBefore(now, SHARED_SIGNAL_DAYS)
      const rows = yield* plays.playCountsSince(since)
      const counts: SharedPlayCounts = {
        version: `${now.getTime()}`,
        sinceMs: since.getTime(),
        counts: new Map(rows.map((row) => [row.track_id, row.plays])),
      }
      yield* Ref.set(shared, { at: now.getTime(), counts })
      return counts
    })

    /** Everything the engine needs for one user. */
    const inputFor = Effect.fn("RebuildService.inputFor")(function* (user: UserId) {
      const [me, history, liked, current, counts, snoozed] = yield* Effect.all(
        [
          accounts.me(user),
          plays.tasteRows(user),
          likes.likedIds(user),
          tuning.current,
          sharedCounts,
          Effect.flatMap(currentDate, (now) => snoozes.active(user, now)),
        ],
        { concurrency: 3 },
      )
      return {
        user,
        timeZone: me.timezone,
        plays: history,
        likes: liked,
        tuning: current,
        // Other users' plays and popularity come from the shared counts (the engine subtracts the user's own);
        // snoozed Discover suggestions leave the deck through their artist's MusicBrainz id.
        signals: { sharedPlays: counts, snoozedArtistMbids: new Set(snoozed.map((row) => row.candidate_mbid)) },
      } satisfies EngineInput
    })

    /**
     * The picks of tracks in libraries the user does not hear: the engine ranks the whole catalogue, so they leave
     * here, read through the user's catalogue like any other read of theirs. None for a user who hears them all.
     */
    const unheardPicks = (scope: LibraryScope, surfaces: ReadonlyArray<Surface>) =>
      Effect.gen(function* () {
        if (scope.ids === undefined) return new Set<string>()
        const ids = [...new Set(surfaces.flatMap((surface) => surface.picks.map((pick) => pick.track_id as string)))]
        const heard = new Set(
          (yield* library.tracksByIds(ids).pipe(LibraryAccess.withScope(scope))).map((track) => track.id as string),
        )
        return new Set(ids.filter((id) => !heard.has(id)))
      })

    /** Names (Songs like <artist> needs the artist's) and unlock reasons. */
    const snapshotsOf = (surfaces: ReadonlyArray<Surface>) =>
      Effect.gen(function* () {
        const seeded = surfaces.flatMap((surface) =>
          surface.variant.startsWith("songs_like_artist:") ? [surface.variant.slice("songs_like_artist:".length)] : [],
        )
        const artists = new Map(
          (yield* library.artistsByIds(seeded)).map((artist) => [artist.id as string, artist.name]),
        )
        return surfaces.map((surface): SystemSnapshot => {
          const name = surface.variant.startsWith("daily_mix:")
            ? `Daily Mix ${surface.variant.slice("daily_mix:".length)}`
            : surface.variant.startsWith("songs_like_artist:")
              ? `Songs like ${artists.get(surface.variant.slice("songs_like_artist:".length)) ?? "this artist"}`
              : (FIXED_NAMES[surface.variant] ?? surface.variant)
          return {
            variant: surface.variant,
            name,
            lockedReason: surface.withheld ? lockedReasonOf(surface.variant, name) : null,
            description: surface.starter === true ? STARTER_MIX_DESCRIPTION : null,
            picks: surface.picks,
          }
        })
      })

    /** Rebuilds one user now; answers how many system playlists were written and how many are withheld. */
    const rebuild = Effect.fn("RebuildService.rebuild")(
      function* (user: UserId) {
        const started = performance.now()
        // Taste comes from every play of the user's; the picks only from the libraries they hear (issue 27).
        const result = yield* engine.rebuild(yield* catalogSource, yield* inputFor(user))
        const scope = yield* access.forUserId(user)
        const unheard = yield* unheardPicks(scope, result.surfaces)
        // The tracks the listener flagged (quarantine) stay out of every system playlist; the minimum still holds.
        const flagged = yield* quarantine.flaggedTrackIds(user)
        const left = new Set([...flagged, ...unheard])
        const snapshots = yield* snapshotsOf(
          left.size === 0
            ? result.surfaces
            : result.surfaces.map((surface) =>
                surface.withheld
                  ? surface
                  : {
                      ...withMinimum(
                        surface.variant,
                        surface.picks.filter((pick) => !left.has(pick.track_id)),
                      ),
                      starter: surface.starter,
                    },
              ),
        )
        const now = yield* currentDate
        yield* Effect.gen(function* () {
          yield* profiles.save(user, result.profile, now)
          yield* playlists.replaceSystemPlaylists(user, snapshots)
          yield* youMightLike.replace(user, result.youMightLike)
        }).pipe(sql.withTransaction, orInternal("RebuildService.rebuild"))
        // After the commit: a client that refetches on this event sees the new snapshot.
        yield* events.publish("playlist.system_rebuilt", user, {})
        rebuildDuration.observe((performance.now() - started) / 1000)
        return {
          playlists: snapshots.length,
          withheld: snapshots.filter((snapshot) => snapshot.lockedReason !== null).length,
        }
      },
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.void : Effect.sync(() => rebuildFailures.inc()),
      ),
    )

    /**
     * A user whose daily run was skipped as inactive (issue 28) is rebuilt on their next visit (Home, the system
     * playlists): the mark is cleared in one statement, so concurrent visits rebuild once.
     */
    const rebuildIfSkipped = Effect.fn("RebuildService.rebuildIfSkipped")(function* (user: UserId) {
      if (yield* jobs.wake(user)) yield* rebuild(user)
    })

    return { rebuild, rebuildIfSkipped, inputFor, catalogSource } as const
  }),
  dependencies: [
    TasteProfileRepository.Default,
    YouMightLikeRepository.Default,
    SnoozeRepository.Default,
    RebuildJobRepository.Default,
  ],
}) {}
