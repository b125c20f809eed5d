import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { DB_POOL_MAX } from "../../src/db/Database.js"

const poolMax = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(DB_POOL_MAX, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("database pool size", () => {
  it.effect("TONEARM_DB_POOL_MAX sets the connections per server, 10 by default, 2 to 200", () =>
    Effect.gen(function* () {
      expect(yield* poolMax({})).toEqual(Either.right(10))
      expect(yield* poolMax({ TONEARM_DB_POOL_MAX: "4" })).toEqual(Either.right(4))
      expect(Either.isLeft(yield* poolMax({ TONEARM_DB_POOL_MAX: "1" }))).toBe(true)
      expect(Either.isLeft(yield* poolMax({ TONEARM_DB_POOL_MAX: "many" }))).toBe(true)
    }),
  )
})
