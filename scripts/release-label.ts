/**
 * Prints today's release label (spec Versioning: `v<year>.<month>.<day>`), for tagging a release:
 *   git tag "$(pnpm --silent release:label)"
 */
import { releaseLabel } from "@tonearm/core"
import { DateTime, Effect } from "effect"

Effect.runSync(
  Effect.map(DateTime.now, (now) => {
    const parts = DateTime.toParts(now)
    console.log(releaseLabel({ year: parts.year, month: parts.month, day: parts.day }))
  }),
)
