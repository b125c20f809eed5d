/**
 * Offline evaluation of the Discover artist suggestions on the HetRec Last.fm-2K format.
 *
 *   pnpm --filter @tonearm/recommend eval -- --data DIR [--eval-users FILE] [--seeds 1,2,3] [--json]
 *
 * For each seed, a seeded 20 % of users (or the ids listed in FILE) is evaluated: a seeded 20 % of each
 * one's artists is hidden and the taste profile is built from the rest (play counts as plays, the artists'
 * tags aggregated over the population's tagging as enriched tags). Everything learned comes from the other
 * users (the population).
 *
 * `discover` runs the shipped pipeline: the in-library source is similarInLibrary's learned blend (EASE +
 * RP3beta fitted on the population's plays, with the tag cosine's share, similarity/blend.ts), the provider
 * is a stand-in built like Last.fm's similar artists (play-weighted asymmetric cosine, PROVIDER_ALPHA), each
 * cut at production's 120 per seed and blended as the server blends sources (blendSourcesByRank); then
 * suggestionPool → rule 5 → diversity at production's list size (30). Baselines computed in the same run:
 * popularity, item-kNN (binary cosine), EASE (λ tuned on this split), RP3beta, random; extra rows isolate
 * the sources. Metrics: NDCG@10, HR@10, recall@50 (over the list a method gives: 30 for the shipped
 * pipeline), catalogue coverage of the top 10s, intra-list diversity (mean 1 − tag cosine over the top 10's
 * pairs), mean popularity rank; each the mean of the seeds, with a 95 % paired interval of the NDCG@10
 * difference against item-kNN over every (seed, user) pair. Knobs exist to explore the blend; what ships is
 * the default, chosen on this development split only.
 * This script is the only part of the package that reads files.
 */
import { readFileSync } from "node:fs"
import { isAbsolute, resolve } from "node:path"
import { parseArgs } from "node:util"
import { AlbumId, ArtistId, SHIPPED_TUNING, TrackId } from "@tonearm/core"
import { Effect, Random } from "effect"
import {
  accumulateTaste,
  BLEND_DEPTH,
  blendSourcesByRank,
  buildCatalog,
  cosine,
  discoverSuggestions,
  fitEase,
  fitLearnedSimilarity,
  fitRp3beta,
  interactionsOf,
  LEARNED_SIMILARITY,
  type LearnedSimilarityTuning,
  type LibraryTrack,
  learnedSimilar,
  mergeSimilarByMax,
  mergeSourceAnswers,
  rp3Scores,
  SIMILAR_SOURCE_WEIGHTS,
  type SimilarCandidate,
  SUGGESTIONS_OVERFETCH,
  SUGGESTIONS_SIZE,
  suggestionPool,
  tagSimilar,
} from "../src/index.js"
import { type HetrecData, loadHetrec } from "./hetrec.js"

const argv = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === "--"))
const { values: options } = parseArgs({
  args: argv,
  options: {
    data: { type: "string" },
    "eval-users": { type: "string" },
    seeds: { type: "string", default: "1,2,3" },
    seed: { type: "string" },
    json: { type: "boolean", default: false },
    /** a comma-separated subset of the methods (item_knn is always run: the CI is against it) */
    methods: { type: "string" },
    /** how the sources merge: "rank" (what ships), "sum" (weighted scores) or "max" (exploration) */
    merge: { type: "string", default: "rank" },
    /**
     * Extra discover rows in the same run, comma-separated, each `key=value` pairs joined by `/`: merge
     * (rank|sum|max|none = learned only), w (provider weight), k (rank damping), knn, rp3, tag, gamma
     * (blend weights that need no refit). E.g. `merge=rank/w=0.25/k=20,merge=none/knn=0.3`.
     */
    variants: { type: "string" },
    // Exploration knobs (defaults: what ships); never tuned on held-out users.
    lambda: { type: "string" },
    "max-items": { type: "string" },
    "rp3-weight": { type: "string" },
    "rp3-beta": { type: "string" },
    "tag-weight": { type: "string" },
    gamma: { type: "string" },
    "provider-weight": { type: "string" },
    "rank-k": { type: "string" },
    knn: { type: "string" },
    "ease-lambda": { type: "string" },
    "ease-items": { type: "string" },
  },
})
if (options.data === undefined) {
  console.error("usage: eval --data DIR [--eval-users FILE] [--seeds 1,2,3] [--json]")
  process.exit(2)
}
// pnpm runs the script inside the package; paths are relative to where the command was typed.
const base = process.env.INIT_CWD ?? process.cwd()
const pathOf = (p: string) => (isAbsolute(p) ? p : resolve(base, p))
const seeds = (options.seed ?? options.seeds).split(",").map((s) => s.trim())
const numberOr = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value))

const shuffledWith = <A>(key: string, items: ReadonlyArray<A>): Array<A> =>
  Array.from(Effect.runSync(Random.shuffle(items).pipe(Effect.withRandom(Random.make(key)))))

const HIDDEN_SHARE = 0.2
const EVAL_SHARE = 0.2
const K_HIT = 10
const K_RECALL = 50
const TOP_TAGS_PER_ARTIST = 15
/** The provider stand-in's asymmetry: 0.5 would be the symmetric cosine. */
const PROVIDER_ALPHA = 0.6
/** Production's cut of each seed's similar list (DiscoverService: SUGGESTIONS_SIZE × SUGGESTIONS_OVERFETCH). */
const PER_SEED = SUGGESTIONS_SIZE * SUGGESTIONS_OVERFETCH

const tuning: LearnedSimilarityTuning = {
  ...LEARNED_SIMILARITY,
  rp3Weight: numberOr(options["rp3-weight"], LEARNED_SIMILARITY.rp3Weight),
  tagWeight: numberOr(options["tag-weight"], LEARNED_SIMILARITY.tagWeight),
  knnWeight: numberOr(options.knn, LEARNED_SIMILARITY.knnWeight),
  popularityDiscount: numberOr(options.gamma, LEARNED_SIMILARITY.popularityDiscount),
  ease: {
    lambda: numberOr(options.lambda, LEARNED_SIMILARITY.ease.lambda),
    maxItems: numberOr(options["max-items"], LEARNED_SIMILARITY.ease.maxItems),
  },
  rp3: { ...LEARNED_SIMILARITY.rp3, beta: numberOr(options["rp3-beta"], LEARNED_SIMILARITY.rp3.beta) },
}
const sourceWeights = {
  ...SIMILAR_SOURCE_WEIGHTS,
  provider: numberOr(options["provider-weight"], SIMILAR_SOURCE_WEIGHTS.provider),
  rankK: numberOr(options["rank-k"], SIMILAR_SOURCE_WEIGHTS.rankK),
}

/** One discover variant: how the sources merge and the blend-time weights (see `--variants`). */
interface Variant {
  readonly name: string
  readonly merge: string
  readonly provider: number
  readonly rankK: number
  readonly tuning: LearnedSimilarityTuning
}
const variantOf = (spec: string): Variant => {
  const pairs = new Map(
    spec.split("/").map((pair) => {
      const [key, value] = pair.split("=")
      return [key!.trim(), (value ?? "").trim()] as const
    }),
  )
  const num = (key: string, fallback: number) => numberOr(pairs.get(key), fallback)
  return {
    name: `discover[${spec}]`,
    merge: pairs.get("merge") ?? options.merge,
    provider: num("w", sourceWeights.provider),
    rankK: num("k", sourceWeights.rankK),
    tuning: {
      ...tuning,
      knnWeight: num("knn", tuning.knnWeight),
      rp3Weight: num("rp3", tuning.rp3Weight),
      tagWeight: num("tag", tuning.tagWeight),
      popularityDiscount: num("gamma", tuning.popularityDiscount),
    },
  }
}
const shippedVariant: Variant = {
  name: "discover",
  merge: options.merge,
  provider: sourceWeights.provider,
  rankK: sourceWeights.rankK,
  tuning,
}
const variants: ReadonlyArray<Variant> = (options.variants ?? "")
  .split(",")
  .map((spec) => spec.trim())
  .filter((spec) => spec !== "")
  .map(variantOf)
/** The EASE baseline: λ tuned on the development split (grid 10–1000: 50 is best), same artist bound. */
const EASE_BASELINE = {
  lambda: numberOr(options["ease-lambda"], 50),
  maxItems: numberOr(options["ease-items"], LEARNED_SIMILARITY.ease.maxItems),
}
const RP3_BASELINE = { alpha: 1, beta: numberOr(options["rp3-beta"], LEARNED_SIMILARITY.rp3.beta) }

const data: HetrecData = loadHetrec(pathOf(options.data))
const users = [...data.plays.keys()].sort((a, b) => a - b)
const listedUsers: ReadonlyArray<number> | undefined =
  options["eval-users"] === undefined
    ? undefined
    : readFileSync(pathOf(options["eval-users"]), "utf8")
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== "")
        .map(Number)
        .filter((user) => data.plays.has(user))

const uuid = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`
const artistIdOf = (artist: number) => ArtistId.make(uuid(1, artist))
const allArtists = [...new Set(users.flatMap((user) => [...data.plays.get(user)!.keys()]))].sort((a, b) => a - b)
const artistOfId = new Map(allArtists.map((artist) => [artistIdOf(artist) as string, artist]))

type SimilarOf = (id: ArtistId) => ReadonlyArray<SimilarCandidate>
type Method = (user: number, visible: ReadonlyMap<number, number>) => ReadonlyArray<number>

interface SeedResult {
  readonly users: number
  readonly population: number
  readonly artists: number
  /** method → per evaluated user (same order in every method) */
  readonly perUser: Map<string, { ndcg10: Array<number>; hr10: Array<number>; recall50: Array<number> }>
  readonly coverage: Map<string, number>
  readonly diversity: Map<string, number>
  readonly popRank: Map<string, number>
}

const evaluateSeed = (seed: string): SeedResult => {
  const evalUsers =
    listedUsers ??
    shuffledWith(`eval-users:${seed}`, users)
      .slice(0, Math.round(users.length * EVAL_SHARE))
      .sort((a, b) => a - b)
  const evalSet = new Set(evalUsers)
  const population = users.filter((user) => !evalSet.has(user))

  // ---- the population: popularity, co-occurrence, tags ------------------------------------------------
  const listeners = new Map<number, number>()
  const cooccurrence = new Map<number, Map<number, number>>()
  for (const user of population) {
    const artists = [...data.plays.get(user)!.keys()]
    for (const a of artists) listeners.set(a, (listeners.get(a) ?? 0) + 1)
    for (const a of artists) {
      const row = cooccurrence.get(a) ?? new Map<number, number>()
      cooccurrence.set(a, row)
      for (const b of artists) if (a !== b) row.set(b, (row.get(b) ?? 0) + 1)
    }
  }
  // Play-weighted co-listening for the provider stand-in: log plays relative to the listener's top artist.
  const weightedDot = new Map<number, Map<number, number>>()
  const weightedNorm = new Map<number, number>()
  for (const user of population) {
    const own = data.plays.get(user)!
    const top = Math.max(...[...own.values()].map((count) => Math.log1p(count)))
    const listens = [...own].map(([artist, count]) => [artist, Math.log1p(count) / top] as const)
    for (const [a, x] of listens) {
      weightedNorm.set(a, (weightedNorm.get(a) ?? 0) + x * x)
      const row = weightedDot.get(a) ?? new Map<number, number>()
      weightedDot.set(a, row)
      for (const [b, y] of listens) if (a !== b) row.set(b, (row.get(b) ?? 0) + x * y)
    }
  }
  const catalogArtists = [...listeners.keys()].sort((a, b) => a - b)
  const popularityOrder = [...catalogArtists].sort((a, b) => listeners.get(b)! - listeners.get(a)! || a - b)
  const popularityRank = new Map(popularityOrder.map((artist, i) => [artist, i + 1]))
  const cosineOf = (a: number, b: number, both: number) => both / Math.sqrt(listeners.get(a)! * listeners.get(b)!)

  const tagCounts = new Map<number, Map<string, number>>()
  for (const [user, artist, tag] of data.taggings) {
    if (evalSet.has(user)) continue // the evaluated users' own tagging would leak their taste
    const name = data.tagNames.get(tag)
    if (name === undefined) continue
    const counts = tagCounts.get(artist) ?? new Map<string, number>()
    tagCounts.set(artist, counts)
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  const tagsOf = (artist: number) => {
    const counts = [...(tagCounts.get(artist) ?? [])].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    const top = counts[0]?.[1] ?? 1
    return counts.slice(0, TOP_TAGS_PER_ARTIST).map(([name, count]) => ({ name, weight: count / top }))
  }

  // ---- the library: one track per artist ----------------------------------------------------------------
  const artistTags = new Map(allArtists.map((artist) => [artist, tagsOf(artist)]))
  const tracks: Array<LibraryTrack> = allArtists.map((artist) => ({
    id: TrackId.make(uuid(2, artist)),
    artist_id: artistIdOf(artist),
    album_id: AlbumId.make(uuid(3, artist)),
    duration_ms: 240_000,
    genre: null,
    tags: artistTags.get(artist)!,
    year: null,
    added_at_ms: 0,
  }))
  const catalog = buildCatalog(tracks)
  const indexOf = (artist: number) => catalog.artistIndex.get(artistIdOf(artist))!
  const artistAt = (index: number) => artistOfId.get(catalog.artistIds[index]!)!
  const candidateOf = (other: number, score: number): SimilarCandidate => ({
    mbid: String(other),
    name: data.artistNames.get(other) ?? String(other),
    score,
    in_library: true,
    artist_id: artistIdOf(other),
    tags: artistTags.get(other) ?? [],
  })

  // ---- similar-artist sources -----------------------------------------------------------------------------
  /** A similar-artists source from a per-pair similarity: every co-listened artist, scaled so the best is 1. */
  const similarSource = (
    rows: ReadonlyMap<number, ReadonlyMap<number, number>>,
    similarity: (a: number, b: number, both: number) => number,
  ): SimilarOf => {
    const cache = new Map<number, ReadonlyArray<SimilarCandidate>>()
    return (id) => {
      const artist = artistOfId.get(id)!
      const cached = cache.get(artist)
      if (cached !== undefined) return cached
      const scored = [...(rows.get(artist) ?? [])]
        .map(([other, both]) => ({ other, similarity: similarity(artist, other, both) }))
        .sort((a, b) => b.similarity - a.similarity || a.other - b.other)
      const top = scored[0]?.similarity ?? 1
      const list = scored.map(({ other, similarity }) => candidateOf(other, similarity / top))
      cache.set(artist, list)
      return list
    }
  }
  const providerSimilar = similarSource(
    weightedDot,
    (a, b, dot) => dot / (weightedNorm.get(a)! ** PROVIDER_ALPHA * weightedNorm.get(b)! ** (1 - PROVIDER_ALPHA)),
  )
  const cosineSimilar = similarSource(cooccurrence, cosineOf)

  // The shipped in-library source: the learned blend fitted on the population's plays (the server fits it
  // on every listener's plays), as similarInLibrary answers it.
  const interactions = interactionsOf(
    catalog.artistIds.length,
    population.flatMap((user) =>
      [...data.plays.get(user)!].map(([artist, plays]) => ({ user, item: indexOf(artist), plays })),
    ),
  )
  const started = Date.now()
  const learned = fitLearnedSimilarity(interactions, tuning)
  const fitMs = Date.now() - started
  /** The in-library source under one variant's blend weights (the fitted model is shared). */
  const inLibraryOf = (variantTuning: LearnedSimilarityTuning): SimilarOf => {
    const model = { ...learned, tuning: variantTuning }
    const cache = new Map<number, ReadonlyArray<SimilarCandidate>>()
    return (id) => {
      const index = catalog.artistIndex.get(id)!
      const cached = cache.get(index)
      if (cached !== undefined) return cached
      const list = learnedSimilar(model, index, PER_SEED, tagSimilar(catalog, index, BLEND_DEPTH)).map(
        ([other, score]) => candidateOf(artistAt(other), score),
      )
      cache.set(index, list)
      return list
    }
  }
  const inLibraryByTuning = new Map<string, SimilarOf>()
  const inLibraryFor = (variantTuning: LearnedSimilarityTuning): SimilarOf => {
    const key = JSON.stringify(variantTuning)
    const known = inLibraryByTuning.get(key)
    if (known !== undefined) return known
    const made = inLibraryOf(variantTuning)
    inLibraryByTuning.set(key, made)
    return made
  }
  const inLibrarySimilar = inLibraryFor(tuning)
  // What DiscoverService reads: every source cut at PER_SEED, merged as similarFromAll merges them.
  const similarOfVariant = (variant: Variant): SimilarOf => {
    const inLibrary = inLibraryFor(variant.tuning)
    const cache = new Map<string, ReadonlyArray<SimilarCandidate>>()
    return (id) => {
      const cached = cache.get(id)
      if (cached !== undefined) return cached
      const own = inLibrary(id).slice(0, PER_SEED)
      const provider = providerSimilar(id).slice(0, PER_SEED)
      const answers = [
        { weight: 1, candidates: own },
        { weight: variant.provider, candidates: provider },
      ]
      const list =
        variant.merge === "none"
          ? own
          : variant.merge === "sum"
            ? mergeSourceAnswers(answers, PER_SEED)
            : variant.merge === "max"
              ? mergeSimilarByMax([own, provider])
              : blendSourcesByRank(answers, PER_SEED, variant.rankK)
      cache.set(id, list)
      return list
    }
  }
  const shippedSimilar = similarOfVariant(shippedVariant)

  // ---- baselines fitted by the project -----------------------------------------------------------------
  const ease = fitEase(interactions, EASE_BASELINE)
  const rp3 = fitRp3beta(interactions, RP3_BASELINE)
  const weightsOf = (visible: ReadonlyMap<number, number>) => {
    const top = Math.log1p(Math.max(...visible.values()))
    return [...visible].map(([artist, plays]) => [indexOf(artist), Math.log1p(plays) / top] as const)
  }

  // ---- methods -------------------------------------------------------------------------------------------
  const topOf = (scores: Map<number, number>, visible: ReadonlyMap<number, number>, k: number) =>
    [...scores]
      .filter(([artist, score]) => !visible.has(artist) && score > 0)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([artist]) => artist)

  const profileOf = (visible: ReadonlyMap<number, number>) =>
    accumulateTaste(
      catalog,
      SHIPPED_TUNING.taste,
      [...visible].map(([artist, count]) => [catalog.trackIndex.get(uuid(2, artist))!, count] as const),
    )

  const discoverWith =
    (similarOf: SimilarOf, tagOverlapWeight: number, size: number): Method =>
    (_user, visible) => {
      const profile = profileOf(visible)
      const pool = suggestionPool({ profile, similarOf, size })
      return discoverSuggestions({
        pool,
        profile,
        discovery: { ...SHIPPED_TUNING.discovery, tag_overlap_weight: tagOverlapWeight },
        size,
      }).map((suggestion) => Number(suggestion.mbid))
    }

  const methods: Record<string, Method> = {
    // What ships: the learned blend + the provider, each cut at 120 per seed, the production list size.
    discover: discoverWith(shippedSimilar, SHIPPED_TUNING.discovery.tag_overlap_weight, SUGGESTIONS_SIZE),
    popularity: (_user, visible) => popularityOrder.filter((artist) => !visible.has(artist)).slice(0, K_RECALL),
    item_knn: (_user, visible) => {
      const scores = new Map<number, number>()
      for (const artist of visible.keys())
        for (const [other, both] of cooccurrence.get(artist) ?? [])
          scores.set(other, (scores.get(other) ?? 0) + cosineOf(artist, other, both))
      return topOf(scores, visible, K_RECALL)
    },
    ease: (_user, visible) => {
      const n = ease.kept.length
      const dense = new Float64Array(n)
      for (const [index, weight] of weightsOf(visible)) {
        const p = ease.position[index]!
        if (p < 0) continue
        for (let j = 0; j < n; j++) dense[j]! += weight * ease.weights[p * n + j]!
      }
      const scores = new Map<number, number>()
      dense.forEach((score, j) => {
        scores.set(artistAt(ease.kept[j]!), score)
      })
      return topOf(scores, visible, K_RECALL)
    },
    rp3beta: (_user, visible) => {
      const scores = new Map<number, number>()
      for (const [index, weight] of weightsOf(visible))
        for (const [other, score] of rp3Scores(rp3, index)) {
          const artist = artistAt(other)
          scores.set(artist, (scores.get(artist) ?? 0) + weight * score)
        }
      return topOf(scores, visible, K_RECALL)
    },
    random: (user, visible) =>
      shuffledWith(
        `random:${seed}:${user}`,
        catalogArtists.filter((artist) => !visible.has(artist)),
      ).slice(0, K_RECALL),
    discover_learned_only: discoverWith(
      (id) => inLibrarySimilar(id).slice(0, PER_SEED),
      SHIPPED_TUNING.discovery.tag_overlap_weight,
      SUGGESTIONS_SIZE,
    ),
    discover_provider_only: discoverWith(providerSimilar, SHIPPED_TUNING.discovery.tag_overlap_weight, K_RECALL),
    discover_cosine_source: discoverWith(cosineSimilar, SHIPPED_TUNING.discovery.tag_overlap_weight, K_RECALL),
    ...Object.fromEntries(
      variants.map((variant) => [
        variant.name,
        discoverWith(similarOfVariant(variant), SHIPPED_TUNING.discovery.tag_overlap_weight, SUGGESTIONS_SIZE),
      ]),
    ),
  }

  if (options.methods !== undefined) {
    const wanted = new Set([
      ...options.methods.split(","),
      "item_knn",
      "ease",
      "discover",
      ...variants.map((variant) => variant.name),
    ])
    for (const name of Object.keys(methods)) if (!wanted.has(name)) delete methods[name]
  }

  // ---- evaluation ----------------------------------------------------------------------------------------
  const perUser: SeedResult["perUser"] = new Map(
    Object.keys(methods).map((name) => [name, { ndcg10: [], hr10: [], recall50: [] }]),
  )
  const covered = new Map(Object.keys(methods).map((name) => [name, new Set<number>()]))
  const ild = new Map(Object.keys(methods).map((name) => [name, { sum: 0, count: 0 }]))
  const pop = new Map(Object.keys(methods).map((name) => [name, { sum: 0, count: 0 }]))
  let evaluated = 0
  for (const user of evalUsers) {
    const own = data.plays.get(user)!
    const artists = [...own.keys()].sort((a, b) => a - b)
    if (artists.length < 2) continue
    const hiddenCount = Math.max(1, Math.round(artists.length * HIDDEN_SHARE))
    const hidden = new Set(shuffledWith(`hide:${seed}:${user}`, artists).slice(0, hiddenCount))
    const visible = new Map(artists.filter((artist) => !hidden.has(artist)).map((artist) => [artist, own.get(artist)!]))
    evaluated++
    let idcg = 0
    for (let i = 0; i < Math.min(K_HIT, hidden.size); i++) idcg += 1 / Math.log2(i + 2)
    for (const [name, method] of Object.entries(methods)) {
      const list = method(user, visible)
      const top = list.slice(0, K_HIT)
      let dcg = 0
      top.forEach((artist, i) => {
        if (hidden.has(artist)) dcg += 1 / Math.log2(i + 2)
        covered.get(name)!.add(artist)
        const p = pop.get(name)!
        p.sum += popularityRank.get(artist) ?? catalogArtists.length + 1
        p.count++
      })
      // Intra-list diversity: mean (1 − tag cosine) over the pairs of the top 10.
      const d = ild.get(name)!
      for (let i = 0; i < top.length; i++)
        for (let j = i + 1; j < top.length; j++) {
          d.sum += 1 - cosine(catalog.artistVectors[indexOf(top[i]!)]!, catalog.artistVectors[indexOf(top[j]!)]!)
          d.count++
        }
      const m = perUser.get(name)!
      m.ndcg10.push(dcg / idcg)
      m.hr10.push(top.some((artist) => hidden.has(artist)) ? 1 : 0)
      m.recall50.push(list.slice(0, K_RECALL).filter((artist) => hidden.has(artist)).length / hidden.size)
    }
  }
  console.error(`seed ${seed}: ${evaluated} users, learned similarity fitted in ${fitMs} ms`)
  const ratio = (m: Map<string, { sum: number; count: number }>) =>
    new Map([...m].map(([name, { sum, count }]) => [name, count > 0 ? sum / count : 0]))
  return {
    users: evaluated,
    population: population.length,
    artists: catalogArtists.length,
    perUser,
    coverage: new Map([...covered].map(([name, set]) => [name, set.size / catalogArtists.length])),
    diversity: ratio(ild),
    popRank: ratio(pop),
  }
}

// ---- three seeds: means and a paired confidence interval against item-kNN --------------------------------

const results = seeds.map(evaluateSeed)
const mean = (xs: ReadonlyArray<number>) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)
const names = [...results[0]!.perUser.keys()]
const metricNames = ["ndcg10", "hr10", "recall50"] as const
/** Per seed mean, then the mean of the seeds. */
const seedMean = (name: string, metric: (typeof metricNames)[number]) =>
  mean(results.map((r) => mean(r.perUser.get(name)![metric])))
/** 95 % interval of the mean paired difference (method − item-kNN) over every (seed, user) pair. */
const pairedInterval = (name: string) => {
  const diffs = results.flatMap((r) => {
    const a = r.perUser.get(name)!.ndcg10
    const b = r.perUser.get("item_knn")!.ndcg10
    return a.map((x, i) => x - b[i]!)
  })
  const m = mean(diffs)
  const variance = diffs.reduce((s, d) => s + (d - m) ** 2, 0) / Math.max(1, diffs.length - 1)
  const half = 1.96 * Math.sqrt(variance / diffs.length)
  return [m - half, m + half] as const
}
const report = Object.fromEntries(
  names.map((name) => [
    name,
    {
      ndcg10: seedMean(name, "ndcg10"),
      hr10: seedMean(name, "hr10"),
      recall50: seedMean(name, "recall50"),
      coverage: mean(results.map((r) => r.coverage.get(name)!)),
      diversity: mean(results.map((r) => r.diversity.get(name)!)),
      pop_rank: mean(results.map((r) => r.popRank.get(name)!)),
      ndcg10_seeds: results.map((r) => mean(r.perUser.get(name)!.ndcg10)),
      vs_item_knn_ci: pairedInterval(name),
    },
  ]),
)

const fixed = (x: number, digits = 4) => x.toFixed(digits)
const first = results[0]!
console.log(
  `HetRec Last.fm-2K: seeds ${seeds.join(",")}; ${first.users} evaluated users, ${first.population} population users, ` +
    `${first.artists} artists in the population (seed ${seeds[0]}); discover = shipped pipeline ` +
    `(${PER_SEED} per seed, ${SUGGESTIONS_SIZE} shown)`,
)
console.log(
  [
    "method".padEnd(24),
    "NDCG@10",
    "×kNN ",
    "ΔNDCG 95% CI vs kNN",
    "HR@10 ",
    "Rec@50",
    "cover ",
    "ILD   ",
    "pop_rank",
  ].join("  "),
)
const knn = report.item_knn!
for (const [name, m] of Object.entries(report))
  console.log(
    [
      name.padEnd(24),
      fixed(m.ndcg10).padEnd(7),
      fixed(m.ndcg10 / knn.ndcg10, 3),
      `[${fixed(m.vs_item_knn_ci[0])}, ${fixed(m.vs_item_knn_ci[1])}]`.padEnd(19),
      fixed(m.hr10),
      fixed(m.recall50),
      fixed(m.coverage),
      fixed(m.diversity),
      fixed(m.pop_rank, 1),
    ].join("  "),
  )
const d = report.discover!
const e = report.ease!
console.log(
  `discover vs item_knn: NDCG@10 ×${fixed(d.ndcg10 / knn.ndcg10, 3)} (target ≥ 1.2), coverage ×${fixed(d.coverage / knn.coverage, 2)} (target ≥ 1); ` +
    `vs ease: ×${fixed(d.ndcg10 / e.ndcg10, 3)} (target > 1); per seed ${d.ndcg10_seeds.map((x) => fixed(x)).join(" ")}`,
)
if (options.json) console.log(JSON.stringify({ seeds, methods: report }))
