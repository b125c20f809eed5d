import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Random } from "effect"
import { forEachTrackEntry } from "../src/catalog/trackEntries.js"
import { cosine, cosineDense, denseTagVector, topK } from "../src/index.js"
import { directDraws } from "../src/surfaces/draws.js"
import { weightedSampleIndexes } from "../src/surfaces/select.js"
import { gridCatalog } from "./fixtures.js"

/** A Random that is not Effect's own class: drawn through its effects only (the slow path). */
const wrapped = (inner: Random.Random): Random.Random => ({
  [Random.RandomTypeId]: Random.RandomTypeId,
  get next() {
    return inner.next
  },
  get nextBoolean() {
    return inner.nextBoolean
  },
  get nextInt() {
    return inner.nextInt
  },
  nextRange: (min, max) => inner.nextRange(min, max),
  nextIntBetween: (min, max) => inner.nextIntBetween(min, max),
  shuffle: (elements) => inner.shuffle(elements),
})

/** The sampling as it was written before the fast paths: one `Random.next` per positive weight, a full sort. */
const referenceSample = (weights: ReadonlyArray<number>, k: number) =>
  Effect.gen(function* () {
    const keyed: Array<{ item: number; key: number }> = []
    for (let item = 0; item < weights.length; item++) {
      if (!(weights[item]! > 0)) continue
      const u = yield* Random.next
      keyed.push({ item, key: Math.log(Math.max(u, Number.MIN_VALUE)) / weights[item]! })
    }
    return keyed
      .sort((a, b) => b.key - a.key)
      .slice(0, k)
      .map((entry) => entry.item)
  })

describe("selection helpers give exactly the reference results", () => {
  it("Effect's own Random is drawn directly; any other Random through its effects", () => {
    expect(directDraws(Random.make("x"))).toBeDefined()
    expect(directDraws(wrapped(Random.make("x")))).toBeUndefined()
  })

  it.prop(
    "weighted sampling: the direct draws, the effect draws and the reference agree (and leave Random in step)",
    [
      fc.array(fc.oneof(fc.double({ min: -1, max: 50, noNaN: true }), fc.constant(0)), { maxLength: 300 }),
      fc.nat(400),
      fc.integer(),
    ],
    ([weights, k, seed]) => {
      const run = (random: Random.Random, effect: Effect.Effect<Array<number>>) =>
        Effect.runSync(Effect.zip(effect, Random.next).pipe(Effect.withRandom(random)))
      const sample = weightedSampleIndexes(weights.length, (i) => weights[i]!, k)
      const expected = run(Random.make(seed), referenceSample(weights, k))
      expect(run(Random.make(seed), sample)).toEqual(expected)
      expect(run(wrapped(Random.make(seed)), sample)).toEqual(expected)
    },
  )

  it.prop(
    "topK is the stable sort's prefix (score descending, index ascending), NaN left out",
    [
      fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(Number.NaN), fc.constant(-0)), { maxLength: 200 }),
      fc.nat(250),
    ],
    ([scores, k]) => {
      const candidates = scores.map((_, i) => scores.length - 1 - i)
      const expected = candidates
        .filter((i) => !Number.isNaN(scores[i]!))
        .sort((a, b) => scores[b]! - scores[a]! || a - b)
        .slice(0, k)
      expect(topK(candidates, (i) => scores[i]!, k)).toEqual(expected)
    },
  )

  it("dense cosines equal the merged ones", () => {
    const catalog = gridCatalog(12, 3, ["Rock", "Jazz; Blues", "Techno", "Folk; Rock; Jazz"], (a) => ({
      tags: [
        { name: `tag-${a % 3}`, weight: 0.3 + (a % 4) / 10 },
        { name: "shared", weight: 0.5 },
      ],
    }))
    for (const seed of catalog.artistVectors) {
      const dense = denseTagVector(seed, catalog.tagNames.length)
      for (const vector of catalog.artistVectors) expect(cosineDense(vector, dense)).toBe(cosine(vector, seed))
    }
  })

  it.prop(
    "signal maps: the remembered resolution always calls back as a fresh look-up would, however the map is patched",
    [
      fc.array(
        fc.record({
          remove: fc.array(fc.nat(80), { maxLength: 10 }),
          set: fc.array(fc.tuple(fc.nat(80), fc.double({ noNaN: true })), { maxLength: 10 }),
        }),
        { maxLength: 8 },
      ),
    ],
    ([patches]) => {
      const catalog = gridCatalog(10, 6)
      const idOf = (n: number) => (n < 60 ? catalog.tracks[n]!.id : `not-in-library-${n}`)
      const map = new Map<string, number>(Array.from({ length: 40 }, (_, n) => [idOf(n * 2), n]))
      const check = () => {
        const seen: Array<[number, number]> = []
        forEachTrackEntry(catalog, map, (t, value) => seen.push([t, value]))
        const expected: Array<[number, number]> = []
        for (const [id, value] of map) {
          const t = catalog.trackIndex.get(id)
          if (t !== undefined) expected.push([t, value])
        }
        expect(seen).toEqual(expected)
      }
      check()
      for (const patch of patches) {
        for (const n of patch.remove) map.delete(idOf(n))
        for (const [n, value] of patch.set) map.set(idOf(n), value)
        check()
      }
      // another catalog: nothing remembered for the first one applies
      const other = gridCatalog(5, 12)
      const seen: Array<number> = []
      forEachTrackEntry(other, map, (t) => seen.push(t))
      expect(seen).toEqual([...map.keys()].flatMap((id) => other.trackIndex.get(id) ?? []))
    },
  )
})
