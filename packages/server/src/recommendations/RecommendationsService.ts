import { RecommendationMetrics, type UserId } from "@tonearm/core"
import { homeRediscover, metricsWindowDays, rollUpMetrics, youMightLikeHomeRow } from "@tonearm/recommend"
import { Effect } from "effect"
import { currentDate, daysBefore } from "../clock.js"
import { PlaysService } from "../listening/index.js"
import { YouMightLikeRepository } from "./YouMightLikeRepository.js"

/** Composes the pure recommendation engine over the listening data. */
export class RecommendationsService extends Effect.Service<RecommendationsService>()(
  "@tonearm/server/RecommendationsService",
  {
    effect: Effect.gen(function* () {
      const plays = yield* PlaysService
      const rows = yield* YouMightLikeRepository

      /** Per-source outcomes over the window (spec "Metrics rules"), rolled up by the pure function in recommend. */
      const metrics = Effect.fn("RecommendationsService.metrics")(function* (user: UserId, days: number | undefined) {
        const windowDays = metricsWindowDays(days)
        const rows = yield* plays.outcomesSince(user, daysBefore(yield* currentDate, windowDays))
        return new RecommendationMetrics(rollUpMetrics(rows, windowDays))
      })

      /** The You-might-like rows of the latest snapshot, in rank order (empty when the cold-start gate held). */
      const youMightLike = (user: UserId) => rows.read(user)

      return {
        metrics,
        youMightLike,
        /**
         * Home's Rediscover rows: the spec's eligibility and ordering, an entry already shown in Most played or
         * Last played only when nothing else is eligible.
         */
        rediscover: homeRediscover,
        /** A You-might-like row as Home shows it: de-duplicated against the other sections, trimmed to 10. */
        youMightLikeHomeRow,
      } as const
    }),
    dependencies: [YouMightLikeRepository.Default],
  },
) {}
