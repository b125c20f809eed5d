import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Scanner } from "../../src/library/index.js"
import { TestServerLive } from "../support/TestServer.js"

const REAL_AUDIO = "/work/shared/data/real-audio"

layer(TestServerLive({ libraryDir: REAL_AUDIO }), { excludeTestServices: true, timeout: "120 seconds" })(
  "scanning real-world files",
  (it) => {
    it.effect("a scan over real tagged files completes, indexing what parses and recording the rest as errors", () =>
      Effect.gen(function* () {
        const scanner = yield* Scanner
        const summary = yield* scanner.scan({ full: false })
        const sql = yield* SqlClient.SqlClient
        const errors = yield* sql<{
          path: string
          message: string
        }>`SELECT path, message FROM scan_errors ORDER BY path`
        console.log(JSON.stringify(Option.getOrNull(summary)), errors.slice(0, 10))
        expect(Option.isSome(summary)).toBe(true)
      }),
    )
  },
)
