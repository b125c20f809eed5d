import * as path from "node:path"
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ParsePool } from "../../src/library/ParsePool.js"
import { wildSamples } from "../support/library.js"

/** Six readable mp3 and FLAC files of the wild library. */
const someAudio = async () => {
  const { root, manifest } = await wildSamples()
  return manifest.files
    .filter((file) => file.parses && /\.(mp3|flac)$/i.test(file.path))
    .slice(0, 6)
    .map((file) => path.join(root, file.path))
}

it.live(
  "parse workers stop after an idle period and start again with the next job",
  () =>
    Effect.gen(function* () {
      const pool = yield* ParsePool
      const live = pool.liveWorkers!
      const files = yield* Effect.promise(someAudio)
      expect(files).toHaveLength(6)
      expect(yield* live).toBe(0) // nothing started before the first job

      const first = yield* pool.parseMany(files)
      expect(first.every((file) => file.ok)).toBe(true)
      expect(yield* live).toBe(2)

      // Jobs closer together than the idle period keep the same workers.
      yield* Effect.sleep("100 millis")
      yield* pool.parseMany(files.slice(0, 2))
      expect(yield* live).toBe(2)

      yield* Effect.sleep("700 millis")
      expect(yield* live).toBe(0) // terminated after 300 ms without a job

      // A scan after the idle period still works: the workers come back.
      const again = yield* pool.parseMany(files)
      expect(again).toEqual(first)
      expect(yield* live).toBe(2)
    }).pipe(Effect.provide(ParsePool.layer(2, 300))),
  30_000,
)
