/**
 * Benchmark: the daily rebuild of one user with 50k plays over a 100k-track synthetic library, on one
 * core (no workers). Prints timings and the ratio to the 1-second target; it is not a test.
 * `--plays N` changes the history size; `--shared N` gives N tracks other users' plays (the Discover
 * cross_user map) and a popularity, as the server's rebuild passes them (default: 5,000 cross_user tracks,
 * no popularity). `--nightly` is the server's nightly shape: `--plays 5000 --shared 70000`. `--runs N`: how
 * many warm full rebuilds are timed.
 *
 *   pnpm --filter @tonearm/recommend bench [-- --nightly | --plays N --shared N]
 */
import { AlbumId, ArtistId, SHIPPED_TUNING, TrackId } from "@tonearm/core"
import { Clock, Effect, Random } from "effect"
import {
  buildCatalog,
  buildTasteProfile,
  dailyMixes,
  discoverDeck,
  type EnrichedTag,
  firstListens,
  forYou,
  type LibraryTrack,
  MOODS,
  newForYou,
  onRepeat,
  type PlayRow,
  radio,
  rebuildUser,
  rediscover,
  type SurfaceInput,
  scoringBasis,
  songsLikeArtist,
  songsLikeSeeds,
  summarizeHistory,
  youMightLike,
} from "../src/index.js"

const TRACKS = 100_000
const ARTISTS = 8_000
const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name)
  if (at < 0) return fallback
  const value = Number(process.argv[at + 1])
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a positive integer`)
  return value
}
const NIGHTLY = process.argv.includes("--nightly")
const PLAYS = flag("--plays", NIGHTLY ? 5_000 : 50_000)
const SHARED = flag("--shared", NIGHTLY ? 70_000 : 0)
const NOW = Date.UTC(2026, 5, 15, 3, 0, 0)
const DAY = 86_400_000

// The synthetic data only needs to be reproducible: a small local generator, not the engine's Random.
let state = 0x2545f491
const rand = () => {
  state = (state + 0x6d2b79f5) | 0
  let t = Math.imul(state ^ (state >>> 15), 1 | state)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(rand() * items.length)]!
const uuid = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`

const GENRES = Array.from({ length: 80 }, (_, i) => `Genre ${i}`)
const FOLK_TAGS = [...Array.from({ length: 300 }, (_, i) => `tag ${i}`), ...MOODS]

const artistGenres = Array.from({ length: ARTISTS }, () => {
  const base = Math.floor(rand() * (GENRES.length - 3))
  return [GENRES[base]!, GENRES[base + 1 + Math.floor(rand() * 2)]!]
})
const artistTags: Array<ReadonlyArray<EnrichedTag>> = Array.from({ length: ARTISTS }, () =>
  Array.from({ length: 6 }, (_, i) => ({ name: pick(FOLK_TAGS), weight: 1 - i * 0.15 })),
)
const tracks: Array<LibraryTrack> = []
const tracksOfArtist: Array<Array<number>> = Array.from({ length: ARTISTS }, () => [])
let album = 0
for (let t = 0; t < TRACKS; t++) {
  const artist = Math.floor((t / TRACKS) * ARTISTS)
  tracksOfArtist[artist]!.push(t)
  if (t % 12 === 0) album++
  const genres = artistGenres[artist]!
  tracks.push({
    id: TrackId.make(uuid(1, t)),
    artist_id: ArtistId.make(uuid(2, artist)),
    album_id: AlbumId.make(uuid(3, album)),
    duration_ms: 150_000 + Math.floor(rand() * 200_000),
    genre: rand() < 0.5 ? genres[0]! : `${genres[0]}; ${genres[1]}`,
    tags: artistTags[artist]!,
    year: rand() < 0.1 ? null : 1960 + Math.floor(rand() * 65),
    added_at_ms: NOW - Math.floor(rand() * 1000) * DAY,
    artist_mbid: uuid(4, artist),
  })
}

// A listener with ~400 favourite artists (Zipf-like), mostly on mobile in the evening, 15 % skips.
const favourites = Array.from({ length: 400 }, () => Math.floor(rand() * ARTISTS))
const plays: Array<PlayRow> = []
for (let i = 0; i < PLAYS; i++) {
  const artist = favourites[Math.floor(favourites.length * rand() ** 2)]!
  const t = pick(tracksOfArtist[artist]!)
  const skipped = rand() < 0.15
  plays.push({
    track_id: tracks[t]!.id,
    started_at_ms: NOW - Math.floor(rand() * 365 * DAY),
    skipped,
    completion: skipped ? rand() * 0.1 : rand() < 0.05 ? null : 0.5 + rand() * 0.5,
    device_class: pick(["mobile", "mobile", "desktop", "web"]),
    source: null,
    pick_kind: null,
  })
}
// As the server loads them: ORDER BY started_at.
plays.sort((a, b) => a.started_at_ms - b.started_at_ms)
const crossUser = new Map(
  Array.from({ length: SHARED > 0 ? SHARED : 5000 }, () => [
    tracks[Math.floor(rand() * TRACKS)]!.id,
    1 + Math.floor(rand() * 50),
  ]),
)
// The server's popularity: every track others played in the window, scaled to the most played.
const popularity = SHARED > 0 ? new Map([...crossUser].map(([id, count]) => [id, count / 50])) : undefined

/** Runs `run` `reps` times and records the median time. */
const time = async <A>(
  label: string,
  run: () => A | Promise<A>,
  rows: Array<[string, number]>,
  reps = STEP_RUNS,
): Promise<A> => {
  const times: Array<number> = []
  let out: A | undefined
  for (let rep = 0; rep < reps; rep++) {
    const start = performance.now()
    out = await run()
    times.push(performance.now() - start)
  }
  rows.push([label, times.sort((a, b) => a - b)[Math.floor(reps / 2)]!])
  return out!
}

// A Clock stopped at NOW and a seeded Random: the engine reads both only through Effect.
const stoppedClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => NOW,
  currentTimeMillis: Effect.succeed(NOW),
  unsafeCurrentTimeNanos: () => BigInt(NOW) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(NOW) * 1_000_000n),
  sleep: () => Effect.void,
}
const atNow = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(effect.pipe(Effect.withClock(stoppedClock), Effect.withRandom(Random.make("bench"))))

const RUNS = flag("--runs", PLAYS <= 10_000 ? 15 : 5)
/** Each step is timed as the median of this many runs. */
const STEP_RUNS = 5
const rows: Array<[string, number]> = []
const tuning = SHIPPED_TUNING
const signals = { crossUser, popularity, jitterSalt: "bench-user" }
const rebuild = (catalog: ReturnType<typeof buildCatalog>) =>
  atNow(rebuildUser({ catalog, plays, timeZone: "Europe/Berlin", tuning, signals }))

const catalog = await time(
  "catalog (100k tracks; built once, shared by all users)",
  () => buildCatalog(tracks),
  rows,
  1,
)
const coldStart = performance.now()
await rebuild(catalog)
const cold = performance.now() - coldStart

// Steps one by one (after the cold run, as in a server rebuilding user after user), each the median of
// STEP_RUNS; the surfaces share one input, so the scoring basis is computed once, as in a rebuild.
const history = await time(
  `listening history (${PLAYS} plays)`,
  () => summarizeHistory({ catalog, plays, timeZone: "Europe/Berlin" }),
  rows,
)
const profile = await time(
  "taste profile",
  () => buildTasteProfile({ catalog, history, taste: tuning.taste, now: NOW }),
  rows,
)
const input: SurfaceInput = { profile, candidates: catalog, history, tuning, ...signals }
// a fresh input object each run: the basis is memoised per input
await time("  scoring basis", () => scoringBasis({ ...input }), rows)
scoringBasis(input)
await time("  for_you", () => atNow(forYou(input)), rows)
await time("  discover deck", () => atNow(discoverDeck(input)), rows)
await time("  new_for_you", () => atNow(newForYou(input)), rows)
await time("  first_listens", () => atNow(firstListens(input)), rows)
await time("  rediscover", () => atNow(rediscover(input)), rows)
await time("  on_repeat", () => atNow(onRepeat(input)), rows)
const mixes = await time("  daily mixes", () => atNow(dailyMixes(input)), rows)
await time(
  "  songs like <artist> ×3",
  () => atNow(Effect.forEach(songsLikeSeeds(input), (a) => songsLikeArtist(input, a))),
  rows,
)
await time("  you might like (albums + artists)", () => atNow(youMightLike(input)), rows)
await time(
  "  radio (artist seed, 50 tracks)",
  () => atNow(radio(input, { kind: "artist", id: songsLikeSeeds(input)[0]! })),
  rows,
)

const warm: Array<number> = []
// CPU time of the process (all its threads, GC included): steadier than wall time on a busy machine
const cpu: Array<number> = []
let full = await rebuild(catalog)
for (let run = 0; run < RUNS; run++) {
  const start = performance.now()
  const startCpu = process.cpuUsage()
  full = await rebuild(catalog)
  const usedCpu = process.cpuUsage(startCpu)
  warm.push(performance.now() - start)
  cpu.push((usedCpu.user + usedCpu.system) / 1000)
}
warm.sort((a, b) => a - b)
cpu.sort((a, b) => a - b)
const median = warm[Math.floor(RUNS / 2)]!
const medianCpu = cpu[Math.floor(RUNS / 2)]!

console.log(
  `Tonearm recommend bench: ${TRACKS} tracks, ${ARTISTS} artists, ${PLAYS} plays, ` +
    `${crossUser.size} cross-user / ${popularity?.size ?? 0} popularity tracks, one user, one core`,
)
for (const [label, ms] of rows) console.log(`${label.padEnd(56)} ${ms.toFixed(1).padStart(8)} ms`)
console.log(
  `${"  (sum of the steps after the catalog)".padEnd(56)} ${rows
    .slice(1, -1)
    .reduce((sum, [, ms]) => sum + ms, 0)
    .toFixed(1)
    .padStart(8)} ms`,
)
console.log(`${"FULL REBUILD, first run (cold JIT)".padEnd(56)} ${cold.toFixed(1).padStart(8)} ms`)
console.log(
  `${`FULL REBUILD, median of ${RUNS} (history + profile + all)`.padEnd(56)} ${median.toFixed(1).padStart(8)} ms`,
)
console.log(`${`FULL REBUILD, median CPU time of ${RUNS}`.padEnd(56)} ${medianCpu.toFixed(1).padStart(8)} ms`)
console.log(
  `${`FULL REBUILD, fastest of ${RUNS} (wall / CPU)`.padEnd(56)} ${warm[0]!.toFixed(1)} / ${cpu[0]!.toFixed(1)} ms`,
)
console.log(
  `snapshots: ${full.snapshots.surfaces.filter((s) => !s.withheld).length} built, ` +
    `${full.snapshots.surfaces.filter((s) => s.withheld).length} withheld, ${mixes.length} daily mixes, ` +
    `${full.snapshots.youMightLike.albums.length} + ${full.snapshots.youMightLike.artists.length} you-might-like`,
)
console.log(
  `full rebuild / 1 s target: median ${(median / 1000).toFixed(3)}, cold ${(cold / 1000).toFixed(3)} ` +
    `(${median < 1000 && cold < 1000 ? "within" : "OVER"} target)`,
)
