import { ArtistId, RecommendationTrends } from "@tonearm/core"
import {
  EMPTY_TASTE_PROFILE,
  isoWeekOf,
  type TasteProfile,
  type TrendPlayRow,
  trendsWindowStart,
  trendsWindowWeeks,
  weeklyTrends,
} from "@tonearm/recommend"
import { DateTime, Effect } from "effect"
import { currentDate } from "../clock.js"
import { PlaysService } from "../listening/index.js"
import { TasteProfileRepository } from "./TasteProfileRepository.js"
import { TuningService } from "./TuningService.js"

/** A play whose artist is gone from the library: it still counts, but can never be a taste hit. */
const NO_ARTIST = ArtistId.make("00000000-0000-0000-0000-000000000000")

/**
 * Weekly recommendation trends for admins (spec "Administration"): every user's plays inside the window,
 * rolled up per family and ISO week by the pure `weeklyTrends`, with taste hits judged against each
 * player's current profile; plus the tuning changes inside the window as markers. Rates only.
 */
export class TrendsService extends Effect.Service<TrendsService>()("@tonearm/server/TrendsService", {
  effect: Effect.gen(function* () {
    const plays = yield* PlaysService
    const profiles = yield* TasteProfileRepository
    const tuning = yield* TuningService

    const get = Effect.fn("TrendsService.get")(function* (requestedWeeks: number | undefined) {
      const now = yield* currentDate
      const weeks = trendsWindowWeeks(requestedWeeks)
      const from = new Date(trendsWindowStart(now.getTime(), weeks))
      const [played, weights, audit] = yield* Effect.all(
        [plays.trendRowsSince(from), profiles.artistWeightsOfAll, tuning.auditBetween(from, now)],
        { concurrency: 3 },
      )

      const artistsByUser = new Map<string, Map<ArtistId, number>>()
      for (const { user_id, key, weight } of weights) {
        const artists = artistsByUser.get(user_id) ?? new Map<ArtistId, number>()
        artistsByUser.set(user_id, artists)
        artists.set(key as ArtistId, weight)
      }
      const current = new Map<string, TasteProfile>(
        [...artistsByUser].map(([user, artists]) => [user, { ...EMPTY_TASTE_PROFILE, artists }]),
      )
      const rows: ReadonlyArray<TrendPlayRow> = played.map((row) => ({ ...row, artist_id: row.artist_id ?? NO_ARTIST }))
      const trends = weeklyTrends({ rows, profiles: current, now: now.getTime(), weeks })

      return new RecommendationTrends({
        weeks: trends.weeks,
        from: DateTime.unsafeMake(trends.from_ms),
        series: trends.series,
        // Oldest first, like the weeks.
        markers: [...audit].reverse().map((row) => ({
          audit_id: row.id,
          scope: row.scope,
          week: isoWeekOf(DateTime.toEpochMillis(row.changed_at)),
          changed_at: row.changed_at,
          fields: row.diff.map((difference) => difference.field),
        })),
      })
    })

    return { get } as const
  }),
  dependencies: [TasteProfileRepository.Default],
}) {}
