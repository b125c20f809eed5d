import { clampLimit, NotFound, Radio, type RadioRequest, type UserId } from "@tonearm/core"
import { EMPTY_TASTE_PROFILE } from "@tonearm/recommend"
import { Effect, Option, Random } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { LibraryAccess, LibraryService } from "../library/index.js"
import { QuarantineService } from "../moderation/index.js"
import { RebuildService } from "./RebuildService.js"
import { RecommendationEngine } from "./RecommendationEngine.js"
import { TasteProfileRepository } from "./TasteProfileRepository.js"

/** A version 4 UUID from Effect's Random (a test that fixes the seed gets the same id). */
const randomUuid = Effect.gen(function* () {
  const bytes: Array<number> = []
  for (let i = 0; i < 16; i++) bytes.push(yield* Random.nextIntBetween(0, 256))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
})

const seedText = (seed: RadioRequest["seed"]) =>
  seed.kind === "genre" ? `genre "${seed.value}"` : `${seed.kind} ${seed.id}`

/**
 * Seeded radio (contract `POST /api/radio`; scoring rules 3–4 inside the engine): the caller's stored taste
 * profile (empty when never built), the live `radio` tuning, the caller's plays for context affinity
 * narrowed to the device class of their latest play, and the deployment's size and recently-played window.
 */
export class RadioService extends Effect.Service<RadioService>()("@tonearm/server/RadioService", {
  effect: Effect.gen(function* () {
    const engine = yield* RecommendationEngine
    const rebuilds = yield* RebuildService
    const profiles = yield* TasteProfileRepository
    const library = yield* LibraryService
    const access = yield* LibraryAccess
    const quarantine = yield* QuarantineService
    const { radio: settings } = yield* TonearmConfig

    /** A seed of a library the caller does not hear is not in their library: 404, like any read of it. */
    const seedHeard = (seed: RadioRequest["seed"]) =>
      Effect.gen(function* () {
        if (seed.kind === "genre") return
        const found =
          seed.kind === "track"
            ? yield* library.tracksByIds([seed.id])
            : seed.kind === "album"
              ? yield* library.albumsByIds([seed.id])
              : yield* library.artistsByIds([seed.id])
        if (found.length === 0) {
          return yield* new NotFound({ message: `no ${seedText(seed)} in the library`, resource: seed.kind })
        }
      })

    const start = Effect.fn("RadioService.start")(function* (user: UserId, request: RadioRequest) {
      const size = clampLimit(request.size, settings.size, settings.sizeMax)
      const [catalog, input, stored, flagged] = yield* Effect.all(
        [rebuilds.catalogSource, rebuilds.inputFor(user), profiles.load(user), quarantine.flaggedTrackIds(user)],
        { concurrency: 4 },
      )
      const limited = (yield* access.current).ids !== undefined
      if (limited) yield* seedHeard(request.seed)
      const profile = Option.match(stored, { onNone: () => EMPTY_TASTE_PROFILE, onSome: (found) => found.profile })
      const picks = yield* engine
        .radio(catalog, input, profile, request.seed, {
          // Room for the tracks the listener flagged (quarantine), which leave the station below, and for those of
          // libraries the listener does not hear.
          size: limited ? settings.sizeMax : Math.min(size + flagged.size, settings.sizeMax),
          maxSize: settings.sizeMax,
          recentlyPlayedHours: settings.recentlyPlayedHours,
        })
        .pipe(
          Effect.catchTag("RadioSeedNotFound", () =>
            Effect.fail(
              new NotFound({ message: `no ${seedText(request.seed)} in the library`, resource: request.seed.kind }),
            ),
          ),
        )
      // The engine ranks the whole catalogue: the caller's catalogue keeps the tracks of the libraries they hear
      // (issue 27), before the station is cut to its size.
      const kept = picks.filter((pick) => !flagged.has(pick.track_id))
      const tracks = (yield* library.tracksByIds(kept.map((pick) => pick.track_id))).slice(0, size)
      return new Radio({ radio_id: yield* randomUuid, tracks })
    })

    return { start } as const
  }),
  dependencies: [TasteProfileRepository.Default],
}) {}
