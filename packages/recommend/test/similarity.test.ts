import { ArtistId } from "@tonearm/core"
import { describe, expect, it } from "vitest"
import {
  blendLists,
  blendSourcesByRank,
  cooccurrenceSimilar,
  easeSimilar,
  fitEase,
  fitLearnedSimilarity,
  fitRp3beta,
  type Interactions,
  interactionsOf,
  invertSpdInPlace,
  LEARNED_SIMILARITY,
  learnedSimilar,
  learnedSimilarityData,
  learnedSimilarityFromData,
  mergeSourceAnswers,
  normalisedTop,
  rp3Scores,
  rp3Similar,
  type SimilarCandidate,
  topItemsByListeners,
} from "../src/index.js"

const close = (actual: ReadonlyArray<number>, expected: ReadonlyArray<number>) => {
  expect(actual.length).toBe(expected.length)
  actual.forEach((x, i) => {
    expect(x).toBeCloseTo(expected[i]!, 10)
  })
}

describe("learned similarity: EASE", () => {
  it("inverts a symmetric positive definite matrix in place", () => {
    // [[4, 2], [2, 3]]⁻¹ = 1/8 [[3, −2], [−2, 4]]
    close([...invertSpdInPlace(Float64Array.from([4, 2, 2, 3]), 2)], [3 / 8, -2 / 8, -2 / 8, 4 / 8])
    // A 3 × 3 one: A · A⁻¹ = I.
    const a = [6, 2, 1, 2, 5, 2, 1, 2, 4]
    const inv = invertSpdInPlace(Float64Array.from(a), 3)
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) {
        let sum = 0
        for (let k = 0; k < 3; k++) sum += a[i * 3 + k]! * inv[k * 3 + j]!
        expect(sum).toBeCloseTo(i === j ? 1 : 0, 10)
      }
  })

  it("refuses a matrix that is not positive definite", () => {
    expect(() => invertSpdInPlace(Float64Array.from([0, 1, 1, 0]), 2)).toThrow()
  })

  it("B = I − P·diag(1/diag(P)) with P = (XᵀX + λI)⁻¹ (known 2-artist answer)", () => {
    // Listener 1 plays both artists, listener 2 only artist 0; λ = 1:
    // G = [[3, 1], [1, 2]], P = 1/5 [[2, −1], [−1, 3]], B01 = −P01/P11 = 1/3, B10 = −P10/P00 = 1/2.
    const x: Interactions = {
      items: 2,
      rows: [
        [
          [0, 1],
          [1, 1],
        ],
        [[0, 1]],
      ],
    }
    const model = fitEase(x, { lambda: 1, maxItems: 10 })
    expect([...model.kept]).toEqual([0, 1]) // most listeners first
    close([...model.weights], [0, 1 / 3, 1 / 2, 0])
    expect(easeSimilar(model, 0, 10)).toEqual([[1, 1]])
  })

  it("keeps only the maxItems artists with most listeners (the Gram matrix stays bounded)", () => {
    const x: Interactions = {
      items: 4,
      rows: [
        [
          [0, 1],
          [1, 1],
          [3, 1],
        ],
        [
          [1, 1],
          [3, 1],
        ],
        [[3, 1]],
      ],
    }
    expect([...topItemsByListeners(x, 2)]).toEqual([3, 1])
    const model = fitEase(x, { lambda: 1, maxItems: 2 })
    expect(model.weights.length).toBe(4)
    expect(model.position[0]).toBe(-1)
    expect(easeSimilar(model, 0, 10)).toEqual([])
    expect(easeSimilar(model, 1, 10).map(([item]) => item)).toEqual([3])
  })
})

describe("learned similarity: RP3beta", () => {
  it("walks artist → listener → artist and divides by the arrival's popularity^β (known answer)", () => {
    // A plays 0 and 1, B plays 0 and 2, C plays 2 (all weight 1); from 0: d0 = 2.
    // via A: (1/2)(1/2) = 0.25 to 1; via B: 0.25 to 2; β = 1: W01 = 0.25/1, W02 = 0.25/2.
    const x: Interactions = {
      items: 3,
      rows: [
        [
          [0, 1],
          [1, 1],
        ],
        [
          [0, 1],
          [2, 1],
        ],
        [[2, 1]],
      ],
    }
    const model = fitRp3beta(x, { alpha: 1, beta: 1 })
    const scores = rp3Scores(model, 0)
    expect(scores.get(1)).toBeCloseTo(0.25, 12)
    expect(scores.get(2)).toBeCloseTo(0.125, 12)
    expect(scores.has(0)).toBe(false)
    expect(rp3Similar(model, 0, 10)).toEqual([
      [1, 1],
      [2, 0.5],
    ])
    // β = 0: popularity is not discounted, both arrivals tie (ties by index).
    expect(rp3Similar(fitRp3beta(x, { alpha: 1, beta: 0 }), 0, 10)).toEqual([
      [1, 1],
      [2, 1],
    ])
  })
})

describe("learned similarity: interactions and blend", () => {
  it("weights each listener's artists log(1 + plays) relative to their most played", () => {
    const x = interactionsOf(3, [
      { user: "a", item: 0, plays: 9 },
      { user: "a", item: 1, plays: 1 },
      { user: "b", item: 2, plays: 4 },
      { user: "b", item: 1, plays: 0 },
    ])
    expect(x.rows).toHaveLength(2)
    close(
      x.rows[0]!.map(([, w]) => w),
      [1, Math.log(2) / Math.log(10)],
    )
    expect(x.rows[1]).toEqual([[2, 1]])
  })

  it("normalisedTop keeps positive scores, best first, best = 1", () => {
    expect(
      normalisedTop(
        [
          [3, 2],
          [1, 4],
          [2, -1],
          [5, 0],
        ],
        5,
      ),
    ).toEqual([
      [1, 1],
      [3, 0.5],
    ])
  })

  it("blends weighted lists, discounts, and scales the best to 1", () => {
    const blended = blendLists(
      [
        {
          weight: 1,
          scores: [
            [1, 1],
            [2, 0.5],
          ],
        },
        { weight: 0.5, scores: [[2, 1]] },
        { weight: 0, scores: [[9, 1]] },
      ],
      10,
    )
    expect(blended).toEqual([
      [1, 1],
      [2, 1],
    ])
    // A discount of the popular artist 1 (÷ 4) puts 2 first.
    expect(
      blendLists(
        [
          {
            weight: 1,
            scores: [
              [1, 1],
              [2, 0.5],
            ],
          },
        ],
        10,
        (item) => (item === 1 ? 0.25 : 1),
      ),
    ).toEqual([
      [2, 1],
      [1, 0.5],
    ])
  })

  it("co-listened artists become each other's learned neighbours; the seed is never its own", () => {
    // Five listeners play 0 and 1 together; three play 2 and 3; artist 4 once with 0.
    const counts = [
      ...[1, 2, 3, 4, 5].flatMap((u) => [
        { user: u, item: 0, plays: 10 },
        { user: u, item: 1, plays: 8 },
      ]),
      ...[6, 7, 8].flatMap((u) => [
        { user: u, item: 2, plays: 5 },
        { user: u, item: 3, plays: 5 },
      ]),
      { user: 1, item: 4, plays: 1 },
    ]
    const model = fitLearnedSimilarity(interactionsOf(5, counts), {
      ...LEARNED_SIMILARITY,
      ease: { lambda: 1, maxItems: 5 },
    })
    const similar = learnedSimilar(model, 0, 10)
    expect(similar[0]![0]).toBe(1)
    expect(similar.map(([item]) => item)).not.toContain(0)
    expect(similar.map(([item]) => item)).not.toContain(2)
    expect(learnedSimilar(model, 2, 10)[0]![0]).toBe(3)
    // The tag list adds its share, and only its share.
    const withTags = learnedSimilar(model, 2, 10, [
      [4, 1],
      [2, 1],
    ])
    expect(withTags[0]![0]).toBe(3)
    expect(withTags.map(([item]) => item)).toContain(4)
    expect(withTags.map(([item]) => item)).not.toContain(2)
  })
})

describe("similar-artist sources: the weighted merge", () => {
  const candidate = (key: string, score: number, artist?: string): SimilarCandidate => ({
    mbid: key,
    name: key,
    score,
    in_library: artist !== undefined,
    artist_id: artist === undefined ? undefined : ArtistId.make(artist),
    tags: [],
  })
  it("sums each source's weighted score over the weight of the sources that answered", () => {
    const a = "00000000-0000-4000-8100-000000000001"
    const merged = mergeSourceAnswers(
      [
        { weight: 1, candidates: [candidate("x", 1, a), candidate("y", 0.5, "00000000-0000-4000-8100-000000000002")] },
        { weight: 1, candidates: [candidate(a, 1), candidate("z", 0.8)] },
        { weight: 3, candidates: [] },
      ],
      10,
    )
    expect(merged.map((c) => [c.mbid, c.score])).toEqual([
      ["x", 1],
      ["z", 0.4],
      ["y", 0.25],
    ])
    expect(merged[0]!.artist_id).toBe(a)
    expect(merged[0]!.in_library).toBe(true)
    expect(mergeSourceAnswers([{ weight: 1, candidates: [candidate("q", 0.7)] }], 10)[0]!.score).toBe(0.7)
    expect(mergeSourceAnswers([{ weight: 1, candidates: [candidate("q", 0.7), candidate("r", 0.2)] }], 1)).toHaveLength(
      1,
    )
  })

  it("the rank blend weights the provider below the learned list whatever its raw scores", () => {
    // The provider scores everything near 1; the learned list is steep. Ranks, not raw scores, decide.
    const id = (n: number) => `00000000-0000-4000-8100-00000000000${n}`
    const learned = [candidate("a", 1, id(1)), candidate("b", 0.2, id(2)), candidate("c", 0.1, id(3))]
    const provider = [candidate("p", 1), candidate("q", 0.99), candidate("b", 0.98, id(2))]
    const blended = blendSourcesByRank(
      [
        { weight: 1, candidates: learned },
        { weight: 0.25, candidates: provider },
      ],
      10,
      20,
    )
    expect(blended.map((c) => c.mbid)).toEqual(["b", "a", "c", "p", "q"])
    // b: learned rank 1 and provider rank 2, 1·20/21 + 0.25·20/22 over 1.25; a: learned rank 0 alone, 1/1.25.
    expect(blended[0]!.score).toBeCloseTo((20 / 21 + 0.25 * (20 / 22)) / 1.25, 12)
    expect(blended[1]!.score).toBeCloseTo(1 / 1.25, 12)
    expect(blended[0]!.artist_id).toBe(id(2))
    // A seed only the provider knows keeps the provider's own (rank) scale, its best at 1.
    expect(blendSourcesByRank([{ weight: 0.25, candidates: provider }], 10, 20)[0]!.score).toBe(1)
  })
})

describe("learned similarity: held as data between fits", () => {
  const counts = [
    ...[1, 2, 3, 4, 5].flatMap((u) => [
      { user: u, item: 0, plays: 10 },
      { user: u, item: 1, plays: 8 },
    ]),
    ...[6, 7, 8].flatMap((u) => [
      { user: u, item: 2, plays: 5 },
      { user: u, item: 3, plays: 5 },
      { user: u, item: 1, plays: 1 },
    ]),
    { user: 1, item: 4, plays: 1 },
  ]
  const tuning = { ...LEARNED_SIMILARITY, ease: { lambda: 1, maxItems: 5 } }

  it("the model read back from its data answers what the fitted model answers", () => {
    const model = fitLearnedSimilarity(interactionsOf(5, counts), tuning)
    const back = learnedSimilarityFromData(learnedSimilarityData(model))
    for (const seed of [0, 1, 2, 3, 4]) {
      const a = learnedSimilar(model, seed, 10)
      const b = learnedSimilar(back, seed, 10)
      expect(b.map(([item]) => item)).toEqual(a.map(([item]) => item))
      // EASE's weights are held in single precision.
      b.forEach(([, score], i) => {
        expect(score).toBeCloseTo(a[i]![1], 6)
      })
    }
  })

  it("after the library changed, an artist gone since the fit is never answered and the others keep their neighbours", () => {
    const model = fitLearnedSimilarity(interactionsOf(5, counts), tuning)
    // Artist 0 left; the others moved down one index; a new artist 4 nobody played yet.
    const index = Int32Array.from([-1, 0, 1, 2, 3])
    const moved = learnedSimilarityFromData(learnedSimilarityData(model), { index, items: 5 })
    expect(learnedSimilar(moved, 1, 10)[0]![0]).toBe(2) // old 2 → 1's neighbour 3 → new 2
    for (const seed of [0, 1, 2, 3, 4]) expect(learnedSimilar(moved, seed, 10).map(([item]) => item)).not.toContain(-1)
  })

  it("item-kNN's listener-set cosine as one more model", () => {
    const model = fitLearnedSimilarity(interactionsOf(5, counts), tuning)
    // 0 and 1 share 5 listeners (0 has 5, 1 has 8): 5/√40; 4 shares 1 listener with 0 (4 has 1): 1/√5.
    const knn = cooccurrenceSimilar(model.rp3, model.listeners, 0, 10)
    expect(knn.map(([item]) => item)).toEqual([1, 4])
    expect(knn[1]![1]).toBeCloseTo(1 / Math.sqrt(5) / (5 / Math.sqrt(40)), 12)
  })
})
