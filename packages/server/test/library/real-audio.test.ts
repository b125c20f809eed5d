import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { signUpFirstAdmin } from "../support/accounts.js"
import { REAL_AUDIO, scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/** Tagger output from the wild (the shared robustness set), scanned read-only in place. */
layer(TestServerLive({ libraryDir: REAL_AUDIO }), { excludeTestServices: true, timeout: "180 seconds" })(
  "scanning real-world files",
  (it) => {
    it.effect(
      "a scan over real tagged files completes, indexes what parses, records the rest, and serves every track",
      () =>
        Effect.gen(function* () {
          const admin = yield* signUpFirstAdmin("admin")
          const summary = yield* scanNow()
          expect(summary.filesSeen).toBeGreaterThan(140)
          expect(summary.errors).toBeGreaterThanOrEqual(1)
          expect(summary.added).toBe(summary.filesSeen - summary.errors)
          const sql = yield* SqlClient.SqlClient
          const errors = yield* sql<{ message: string }>`SELECT message FROM scan_errors`
          expect(errors).toHaveLength(summary.errors)
          for (const error of errors) expect(error.message.length).toBeGreaterThan(0)
          const tracks = yield* sql<{ id: string }>`SELECT id FROM tracks`
          expect(tracks).toHaveLength(summary.added)
          for (const track of tracks) {
            const head = yield* raw("HEAD", `/api/tracks/${track.id}/stream`, { token: admin.token })
            expect({ id: track.id, status: head.status }).toEqual({ id: track.id, status: 200 })
          }
          // Genres of the wild still index under the rule, and every one has a page.
          const genres = yield* sql<{ genre: string }>`SELECT DISTINCT genre FROM track_genres`
          for (const { genre } of genres.slice(0, 40)) {
            const page = yield* raw("GET", `/api/library/albums?genre=${encodeURIComponent(genre)}`, {
              token: admin.token,
            })
            expect((page.json as { total: number }).total).toBeGreaterThan(0)
          }
          expect((yield* scanNow()).added).toBe(0)
        }),
    )
  },
)
