import { monitorEventLoopDelay, performance } from "node:perf_hooks"
import { describe, expect, it } from "@effect/vitest"
import { AlbumId, ArtistId, Internal, SHIPPED_TUNING, TrackId, UserId } from "@tonearm/core"
import { EMPTY_TASTE_PROFILE, type LibraryTrack, type PlayRow } from "@tonearm/recommend"
import { Effect, Layer, Random } from "effect"
import { fixedClock } from "../../src/recommendations/engineWorker.js"
import {
  type CatalogSource,
  type EngineInput,
  type PlayColumns,
  type PlayText,
  RecommendationEngine,
  type SharedPlayCounts,
} from "../../src/recommendations/RecommendationEngine.js"
import { engineSeed, RecommendationEngineWorker } from "../../src/recommendations/RecommendationEngineWorker.js"

const NOW = Date.UTC(2026, 5, 15, 3, 0, 0)
const DAY = 86_400_000

/** A reproducible synthetic library and one listener's history (no engine randomness involved). */
const synthetic = (trackCount: number, playCount: number) => {
  let state = 0x1234567
  const rand = () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const uuid = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`
  const artists = Math.max(10, Math.floor(trackCount / 12))
  const tracks: Array<LibraryTrack> = Array.from({ length: trackCount }, (_, t) => {
    const artist = Math.floor((t / trackCount) * artists)
    return {
      id: TrackId.make(uuid(1, t)),
      artist_id: ArtistId.make(uuid(2, artist)),
      album_id: AlbumId.make(uuid(3, Math.floor(t / 10))),
      duration_ms: 150_000 + Math.floor(rand() * 200_000),
      genre: `Genre ${artist % 17}; Genre ${(artist + 3) % 17}`,
      year: rand() < 0.1 ? null : 1960 + Math.floor(rand() * 65),
      added_at_ms: NOW - Math.floor(rand() * 400) * DAY,
    }
  })
  const favourites = Array.from({ length: 40 }, () => Math.floor(rand() * trackCount))
  const plays: Array<PlayRow> = Array.from({ length: playCount }, () => {
    const base = favourites[Math.floor(favourites.length * rand() ** 2)]!
    const skipped = rand() < 0.15
    return {
      track_id: tracks[Math.min(trackCount - 1, base + Math.floor(rand() * 10))]!.id,
      started_at_ms: NOW - Math.floor(rand() * 365 * DAY),
      skipped,
      completion: skipped ? rand() * 0.1 : 0.5 + rand() * 0.5,
      device_class: rand() < 0.5 ? "mobile" : "desktop",
      source: null,
      pick_kind: null,
    }
  }).sort((a, b) => a.started_at_ms - b.started_at_ms)
  return { tracks, plays }
}

const { tracks, plays } = synthetic(3_000, 1_500)
const source: CatalogSource = { version: "v1", load: Effect.succeed(tracks) }
const input: EngineInput = {
  user: UserId.make("00000000-0000-4000-8000-00000000abcd"),
  timeZone: "Europe/Paris",
  plays,
  likes: { tracks: [plays[0]!.track_id], albums: [], artists: [] },
  tuning: SHIPPED_TUNING,
  signals: { crossUser: new Map([[tracks[5]!.id, 3]]), popularity: new Map([[tracks[5]!.id, 1]]) },
}

const engineOf = (layer: Layer.Layer<RecommendationEngine>) =>
  Effect.map(
    Layer.build(layer),
    (context) => context.unsafeMap.get(RecommendationEngine.key) as RecommendationEngine["Type"],
  )

/** Runs an engine call at the fixed test instant. */
const atNow = <A, E>(effect: Effect.Effect<A, E>) => effect.pipe(Effect.withClock(fixedClock(NOW)))

describe("recommendation engine in its own process", () => {
  it.scoped(
    "the worker engine and the in-process engine give the same snapshot for the same input, seed and now",
    () =>
      Effect.gen(function* () {
        const worker = yield* engineOf(RecommendationEngineWorker(1))
        const inProcess = yield* engineOf(RecommendationEngine.inProcess)
        // The worker draws its seed from the caller's Random; in process that seed is the Random itself.
        const seed = yield* engineSeed.pipe(Effect.withRandom(Random.make("rebuild-seed")))
        const fromWorker = yield* atNow(worker.rebuild(source, input)).pipe(
          Effect.withRandom(Random.make("rebuild-seed")),
        )
        const local = yield* atNow(inProcess.rebuild(source, input)).pipe(Effect.withRandom(Random.make(seed)))
        expect(fromWorker.surfaces.length).toBeGreaterThan(5)
        expect(fromWorker.surfaces.some((surface) => surface.picks.length > 0)).toBe(true)
        expect(fromWorker).toEqual(local)

        // Radio too, scored with the profile the rebuild produced.
        const radioSeed = { kind: "track", id: plays[0]!.track_id } as const
        const workerRadio = yield* atNow(worker.radio(source, input, EMPTY_TASTE_PROFILE, radioSeed, {})).pipe(
          Effect.withRandom(Random.make("radio-seed")),
        )
        const radioSeedValue = yield* engineSeed.pipe(Effect.withRandom(Random.make("radio-seed")))
        const localRadio = yield* atNow(inProcess.radio(source, input, EMPTY_TASTE_PROFILE, radioSeed, {})).pipe(
          Effect.withRandom(Random.make(radioSeedValue)),
        )
        expect(workerRadio.length).toBeGreaterThan(0)
        expect(workerRadio).toEqual(localRadio)

        // The next users' signal maps reach the worker as patches of the previous ones (or whole, or none):
        // the answers stay the in-process engine's.
        const crossUser = new Map(tracks.slice(0, 400).map((track, i) => [track.id, 1 + (i % 7)] as const))
        for (const signals of [
          { crossUser, popularity: new Map([[tracks[5]!.id, 1]]) },
          { crossUser: new Map([...crossUser, [tracks[401]!.id, 9]]), popularity: new Map([[tracks[6]!.id, 1]]) },
          { crossUser: new Map([...crossUser].slice(3)), popularity: undefined },
          {},
        ]) {
          const next = { ...input, signals }
          const nextSeed = yield* engineSeed.pipe(Effect.withRandom(Random.make("next")))
          expect(yield* atNow(worker.rebuild(source, next)).pipe(Effect.withRandom(Random.make("next")))).toEqual(
            yield* atNow(inProcess.rebuild(source, next)).pipe(Effect.withRandom(Random.make(nextSeed))),
          )
        }

        // An unknown seed is the same typed failure, not a defect.
        const missing = yield* Effect.flip(
          worker.radio(source, input, EMPTY_TASTE_PROFILE, { kind: "artist", id: "missing" } as never, {}),
        )
        expect(missing._tag).toBe("RadioSeedNotFound")
      }),
    { timeout: 60_000 },
  )

  it.scoped(
    "popularity and other users' plays derived from the server-wide counts (sent once) and plays as columns give the answers of the maps built on the main thread",
    () =>
      Effect.gen(function* () {
        const worker = yield* engineOf(RecommendationEngineWorker(1))
        const inProcess = yield* engineOf(RecommendationEngine.inProcess)
        const sinceMs = NOW - 30 * DAY
        /** The previous main-thread derivation, as the reference. */
        const explicit = (history: ReadonlyArray<PlayRow>, counts: ReadonlyMap<TrackId, number>) => {
          const own = new Map<TrackId, number>()
          for (const play of history)
            if (!play.skipped && play.started_at_ms >= sinceMs)
              own.set(play.track_id, (own.get(play.track_id) ?? 0) + 1)
          const crossUser = new Map<TrackId, number>()
          let most = 0
          for (const [track, count] of counts) {
            most = Math.max(most, count)
            const others = count - (own.get(track) ?? 0)
            if (others > 0) crossUser.set(track, others)
          }
          const popularity = new Map<TrackId, number>()
          if (most > 0) for (const [track, count] of counts) popularity.set(track, count / most)
          return { crossUser, popularity }
        }
        const columnsOf = (history: ReadonlyArray<PlayRow>): PlayColumns => ({
          trackIds: history.map((play) => play.track_id),
          startedAtMs: Float64Array.from(history, (play) => play.started_at_ms),
          skipped: Uint8Array.from(history, (play) => (play.skipped ? 1 : 0)),
          completion: Float64Array.from(history, (play) => play.completion ?? Number.NaN),
          deviceClass: history.map((play) => play.device_class ?? null),
          source: history.map(() => null),
          pickKind: history.map(() => null),
        })
        // Everyone's counts: other listeners on 800 tracks, plus this user's own plays in the window (some
        // tracks only this user played: they leave crossUser).
        const counts = new Map<TrackId, number>(tracks.slice(0, 800).map((track, i) => [track.id, 1 + (i % 5)]))
        for (const play of plays)
          if (!play.skipped && play.started_at_ms >= sinceMs)
            counts.set(play.track_id, (counts.get(play.track_id) ?? 0) + 1)
        const sharedPlays: SharedPlayCounts = { version: "window-1", sinceMs, counts }
        // Three users on the same count: later jobs name the version only, the worker moves its one map along.
        for (const [index, history] of [plays, plays.slice(300), plays].entries()) {
          const derived = { ...input, plays: columnsOf(history), signals: { sharedPlays } }
          const reference = { ...input, plays: history, signals: explicit(history, counts) }
          const seed = yield* engineSeed.pipe(Effect.withRandom(Random.make(`shared-${index}`)))
          const expected = yield* atNow(inProcess.rebuild(source, reference)).pipe(Effect.withRandom(Random.make(seed)))
          expect(expected.surfaces.some((surface) => surface.variant === "discover")).toBe(true)
          expect(
            yield* atNow(worker.rebuild(source, derived)).pipe(Effect.withRandom(Random.make(`shared-${index}`))),
          ).toEqual(expected)
          expect(yield* atNow(inProcess.rebuild(source, derived)).pipe(Effect.withRandom(Random.make(seed)))).toEqual(
            expected,
          )
        }
      }),
    { timeout: 60_000 },
  )

  it.scoped(
    "a new library version reaches the worker before the next job; a failing load is an Internal",
    () =>
      Effect.gen(function* () {
        const worker = yield* engineOf(RecommendationEngineWorker(1))
        const smaller = synthetic(500, 200)
        let loads = 0
        const counted = (version: string, rows: ReadonlyArray<LibraryTrack>): CatalogSource => ({
          version,
          load: Effect.sync(() => {
            loads++
            return rows
          }),
        })
        yield* worker.rebuild(counted("a", tracks), input)
        yield* worker.rebuild(counted("a", tracks), input)
        expect(loads).toBe(1)
        const after = yield* worker.rebuild(counted("b", smaller.tracks), { ...input, plays: smaller.plays })
        expect(loads).toBe(2)
        const known = new Set(smaller.tracks.map((track) => track.id as string))
        for (const surface of after.surfaces)
          for (const pick of surface.picks) expect(known.has(pick.track_id)).toBe(true)
        const failing: CatalogSource = { version: "c", load: Effect.fail(new Internal({ message: "boom" })) }
        expect((yield* Effect.flip(worker.rebuild(failing, input)))._tag).toBe("Internal")
      }),
    { timeout: 60_000 },
  )

  it.scoped(
    "plays as PostgreSQL sends them (undecoded text and bytes) give the answer of the same plays as rows; a malformed history is an Internal and the worker keeps serving",
    () =>
      Effect.gen(function* () {
        const worker = yield* engineOf(RecommendationEngineWorker(1))
        const inProcess = yield* engineOf(RecommendationEngine.inProcess)
        // Every column's edge: a NULL completion (NaN in the bytes), sources and pick kinds set and null.
        const rows: ReadonlyArray<PlayRow> = plays.map((play, i) => ({
          ...play,
          completion: i % 10 === 0 ? null : play.completion,
          source: i % 3 === 0 ? "for_you" : null,
          pick_kind: i % 3 === 0 ? "taste" : null,
        }))
        const floats = (values: ReadonlyArray<number>) => {
          const bytes = new Uint8Array(values.length * 8)
          const view = new DataView(bytes.buffer)
          for (const [i, value] of values.entries()) view.setFloat64(i * 8, value, false)
          return bytes
        }
        const text: PlayText = {
          plays: rows.length,
          track_ids: JSON.stringify(rows.map((play) => play.track_id)),
          started_at: floats(rows.map((play) => play.started_at_ms)),
          skipped: rows.map((play) => (play.skipped ? "1" : "0")).join(""),
          completion: floats(rows.map((play) => play.completion ?? Number.NaN)),
          device_class: JSON.stringify(rows.map((play) => play.device_class)),
          source: JSON.stringify(rows.map((play) => play.source)),
          pick_kind: JSON.stringify(rows.map((play) => play.pick_kind)),
        }
        const seed = yield* engineSeed.pipe(Effect.withRandom(Random.make("text")))
        const expected = yield* atNow(inProcess.rebuild(source, { ...input, plays: rows })).pipe(
          Effect.withRandom(Random.make(seed)),
        )
        expect(
          yield* atNow(worker.rebuild(source, { ...input, plays: text })).pipe(Effect.withRandom(Random.make("text"))),
        ).toEqual(expected)
        for (const malformed of [
          { ...text, pick_kind: JSON.stringify(rows.map(() => "not a kind")) },
          { ...text, track_ids: JSON.stringify(["not a track id", ...rows.slice(1).map((play) => play.track_id)]) },
          { ...text, device_class: "[" },
          { ...text, completion: text.completion.subarray(8) },
        ]) {
          const failure = yield* Effect.flip(worker.rebuild(source, { ...input, plays: malformed }))
          expect(failure._tag).toBe("Internal")
          expect(failure.message).toContain("malformed play history")
        }
        expect(
          yield* atNow(worker.rebuild(source, { ...input, plays: text })).pipe(Effect.withRandom(Random.make("text"))),
        ).toEqual(expected)
      }),
    { timeout: 60_000 },
  )

  it.scoped(
    "a rebuild on the worker leaves the event loop free: the loop is busy for a fraction of the time it is in process",
    () =>
      Effect.gen(function* () {
        const big = synthetic(30_000, 30_000)
        const source: CatalogSource = { version: "big", load: Effect.succeed(big.tracks) }
        const input30k = { ...input, plays: big.plays }
        const worker = yield* engineOf(RecommendationEngineWorker(1))
        const inProcess = yield* engineOf(RecommendationEngine.inProcess)
        // Warm both (the catalog reaches the worker once; JIT), then time one in-process rebuild: it blocks.
        yield* worker.rebuild(source, input30k)
        yield* inProcess.rebuild(source, input30k)
        const started = performance.now()
        const beforeInProcess = performance.eventLoopUtilization()
        yield* inProcess.rebuild(source, input30k)
        const busyInProcess = performance.eventLoopUtilization(beforeInProcess).utilization
        const blockingMs = performance.now() - started
        const delay = monitorEventLoopDelay({ resolution: 5 })
        const before = performance.eventLoopUtilization()
        delay.enable()
        for (let i = 0; i < 3; i++) yield* worker.rebuild(source, input30k)
        delay.disable()
        const busy = performance.eventLoopUtilization(before).utilization
        const stallMs = delay.max / 1e6
        console.log(
          `[measure] in process: rebuild ${blockingMs.toFixed(0)} ms, loop busy ${(busyInProcess * 100).toFixed(1)}%; on the worker: loop busy ${(busy * 100).toFixed(1)}%, longest stall ${stallMs.toFixed(0)} ms`,
        )
        // The share of time the loop is busy, not the longest stall: a loaded machine stalls any process now and
        // then (CI saw 120 ms), while the busy share only moves with what this thread itself does (sending the
        // plays, decoding the snapshot).
        expect(busyInProcess).toBeGreaterThan(0.8)
        expect(busy).toBeLessThan(busyInProcess / 2)
      }),
    { timeout: 120_000 },
  )
})
