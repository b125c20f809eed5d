import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { SHIPPED_TUNING } from "@tonearm/core"
import { Effect, FastCheck as fc } from "effect"
import { rebuildSystemSnapshots, rebuildUser } from "../src/index.js"
import { atTime, gridCatalog, play, surfaceInput } from "./fixtures.js"

describe("determinism", () => {
  const catalog = gridCatalog(40, 10)
  const plays = Array.from({ length: 80 }, (_, i) =>
    play((i * 37) % 400, 1 + (i % 300), { skipped: i % 9 === 0, device: i % 2 ? "mobile" : "web" }),
  )
  const crossUser = new Map(Array.from({ length: 30 }, (_, i) => [catalog.tracks[i * 13]!.id, 1 + i]))

  describe("determinism under a fixed seed", () => {
    it.effect.prop(
      "the same seed and clock give the same snapshots, every surface",
      [fc.integer({ min: 0, max: 1_000_000 })],
      ([seed]) =>
        Effect.gen(function* () {
          const input = surfaceInput(catalog, plays, { extra: { crossUser, jitterSalt: "u" } })
          const first = yield* atTime(rebuildSystemSnapshots(input), seed)
          // a fresh input object: nothing may leak between runs through memo caches
          const again = yield* atTime(
            rebuildSystemSnapshots(surfaceInput(catalog, plays, { extra: { crossUser, jitterSalt: "u" } })),
            seed,
          )
          expect(again).toEqual(first)
        }),
      { fastCheck: { numRuns: 8 } },
    )

    it.effect("different seeds give different random picks", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays, { extra: { crossUser } })
        const a = yield* atTime(rebuildSystemSnapshots(input), 1)
        const b = yield* atTime(rebuildSystemSnapshots(input), 2)
        const deck = (s: typeof a) => s.surfaces.find((x) => x.variant === "discover")!.picks
        expect(deck(a)).not.toEqual(deck(b))
      }),
    )

    it.effect("the whole rebuild reads time only from the Clock: the profile is built at the Clock's now", () =>
      Effect.gen(function* () {
        const args = { catalog, plays, timeZone: "Europe/Paris", tuning: SHIPPED_TUNING }
        const now = yield* atTime(rebuildUser(args))
        const later = yield* atTime(rebuildUser(args), "seed", Date.UTC(2025, 11, 1))
        const [artist, weight] = [...now.profile.artists].sort((x, y) => y[1] - x[1])[0]!
        expect(later.profile.artists.get(artist)!).toBeLessThan(weight)
      }),
    )
  })
})

describe("purity", () => {
  /** "No function in the package reads the clock, the random source or the network directly." */
  const SOURCE = join(import.meta.dirname, "..", "src")
  const files = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : []
    })

  const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
    [/Date\.now\(/, "Date.now()"],
    [/new Date\(\s*\)/, "new Date()"],
    [/Math\.random\(/, "Math.random()"],
    [/performance\.now\(/, "performance.now()"],
    [/\bfetch\(/, "fetch()"],
    [/from "node:/, "a Node built-in"],
    [/process\./, "process"],
    [/console\./, "console"],
  ]

  describe("purity of @tonearm/recommend", () => {
    it("no source file reads the clock, Math.random, the network, the file system or the process", () => {
      const offences = files(SOURCE).flatMap((file) => {
        const text = readFileSync(file, "utf8")
        return FORBIDDEN.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${file}: ${what}`)
      })
      expect(offences).toEqual([])
      expect(files(SOURCE).length).toBeGreaterThan(20)
    })
  })
})
