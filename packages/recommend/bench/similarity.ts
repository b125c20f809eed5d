/**
 * The learned artist similarity at the nightly bench's shape (server/bench/rebuild.ts: 1,001 users × 5,000
 * plays over 100k tracks, 8,000 artists, each listener centred on a region of the library with a cubed draw):
 * fit time, the heap it holds, and one seed's answer time.
 *
 *   pnpm --filter @tonearm/recommend exec tsx bench/similarity.ts [--users 1001] [--plays 5000]
 */
import { parseArgs } from "node:util"
import {
  fitLearnedSimilarity,
  interactionsOf,
  LEARNED_SIMILARITY,
  learnedSimilar,
  learnedSimilarityBytes,
  learnedSimilarityData,
  learnedSimilarityFromData,
  type PlayCount,
} from "../src/index.js"

const { values } = parseArgs({
  options: { users: { type: "string", default: "1001" }, plays: { type: "string", default: "5000" } },
})
const users = Number(values.users)
const playsPerUser = Number(values.plays)
const tracks = 100_000
const albums = Math.floor(tracks / 12)
const artists = Math.floor(tracks / 12.5)

let state = 42
const random = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0
  return state / 4294967296
}
const counts = new Map<string, number>()
for (let u = 0; u < users; u++)
  for (let i = 0; i < playsPerUser; i++) {
    const idx = (u * 104729 + Math.floor(20000 * random() ** 3)) % tracks
    const artist = Math.floor((Math.floor(idx / 12) * artists) / albums)
    const key = `${u}:${artist}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
const rows: Array<PlayCount> = [...counts].map(([key, plays]) => {
  const [user, item] = key.split(":")
  return { user: user!, item: Number(item), plays }
})
const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
const started = performance.now()
const model = fitLearnedSimilarity(interactionsOf(artists, rows))
const fitMs = performance.now() - started
const held = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore
const seedStarted = performance.now()
for (let s = 0; s < 50; s++) learnedSimilar(model, model.ease.kept[s * 7]!, 120)
const seedMs = (performance.now() - seedStarted) / 50
console.log(
  `${users} users × ${playsPerUser} plays → ${rows.length} (user, artist) rows over ${artists} artists; ` +
    `EASE over ${model.ease.kept.length} (maxItems ${LEARNED_SIMILARITY.ease.maxItems}): fit ${(fitMs / 1000).toFixed(1)} s, ` +
    `held ≈ ${(held / 1e6).toFixed(0)} MB, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; ` +
    `one seed's 120 similar artists ${seedMs.toFixed(1)} ms`,
)
// What the server holds between fits (LearnedSimilarityService) and what an engine process rebuilds from it.
const data = learnedSimilarityData(model)
const readStarted = performance.now()
const back = learnedSimilarityFromData(data)
const readMs = performance.now() - readStarted
learnedSimilar(back, back.ease.kept[0]!, 120)
console.log(
  `held by the server between fits: ${(learnedSimilarityBytes(data) / 1e6).toFixed(1)} MB of typed arrays; ` +
    `an engine process reads it back in ${readMs.toFixed(0)} ms`,
)
