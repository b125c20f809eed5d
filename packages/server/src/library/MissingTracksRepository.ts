import { SqlClient } from "@effect/sql"
import { Track } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeRows, withTotal } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { TRACK_COLUMNS } from "./BrowseRepository.js"

/** A missing track as stored: the wire Track, with pg's `Date`s decoded. */
export const MissingTrackRecord = Schema.Struct({
  ...Track.fields,
  added_at: Schema.DateTimeUtcFromDate,
  missing_since: Schema.DateTimeUtcFromDate,
})
export type MissingTrackRecord = typeof MissingTrackRecord.Type

/**
 * Reads the tracks whose files vanished. They are hidden from the `tracks` view, so this reads the base
 * tables (`indexed_*`, migration 0006); their album and artist may be missing too.
 */
export class MissingTracksRepository extends Effect.Service<MissingTracksRepository>()(
  "@tonearm/server/MissingTracksRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const trackColumns = sql.literal(TRACK_COLUMNS)

      /** The longest missing first (then by id, so pages are stable), with the total. */
      const page = (offset: number, limit: number) =>
        withTotal(
          sql`
              SELECT ${trackColumns}, t.missing_since
              FROM indexed_tracks t JOIN indexed_albums al ON al.id = t.album_id
              WHERE t.missing_since IS NOT NULL
              ORDER BY t.missing_since, t.id
              OFFSET ${offset} LIMIT ${limit}`.pipe(Effect.flatMap(decodeRows(MissingTrackRecord))),
          sql<{ n: number }>`
              SELECT count(*)::int AS n FROM indexed_tracks WHERE missing_since IS NOT NULL`,
        ).pipe(orInternal("MissingTracksRepository.page"))

      return { page } as const
    }),
  },
) {}
