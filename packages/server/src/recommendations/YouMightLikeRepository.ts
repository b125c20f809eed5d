import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

export type YouMightLikeKind = "album" | "artist"

/** `you_might_like`: the rows of the latest system snapshot, in rank order. */
export class YouMightLikeRepository extends Effect.Service<YouMightLikeRepository>()(
  "@tonearm/server/YouMightLikeRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /** Replaces both rows (inside the caller's transaction). */
      const replace = (
        user: UserId,
        rows: { readonly albums: ReadonlyArray<string>; readonly artists: ReadonlyArray<string> },
      ) =>
        Effect.gen(function* () {
          yield* sql`DELETE FROM you_might_like WHERE user_id = ${user}`
          const kinds = [...rows.albums.map(() => "album"), ...rows.artists.map(() => "artist")]
          if (kinds.length === 0) return
          const ranks = [...rows.albums.map((_, i) => i), ...rows.artists.map((_, i) => i)]
          yield* sql`
            INSERT INTO you_might_like (user_id, kind, entity_id, rank)
            SELECT ${user}, y.kind, y.entity_id, y.rank
            FROM unnest(${kinds}::text[], ${[...rows.albums, ...rows.artists]}::uuid[], ${ranks}::int[])
                 AS y (kind, entity_id, rank)
            ON CONFLICT DO NOTHING`
        }).pipe(orInternal("YouMightLikeRepository.replace"))

      /** Both rows of the snapshot, each in rank order. */
      const read = (user: UserId) =>
        sql<{ kind: YouMightLikeKind; entity_id: string }>`
          SELECT kind, entity_id FROM you_might_like WHERE user_id = ${user} ORDER BY kind, rank, entity_id`.pipe(
          Effect.map((rows) => ({
            albums: rows.flatMap((row) => (row.kind === "album" ? [row.entity_id] : [])),
            artists: rows.flatMap((row) => (row.kind === "artist" ? [row.entity_id] : [])),
          })),
          orInternal("YouMightLikeRepository.read"),
        )

      return { replace, read } as const
    }),
  },
) {}
