import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { AlbumId, ArtistId, SHIPPED_TUNING, TrackId, UserId } from "@tonearm/core"
import type { LibraryTrack } from "@tonearm/recommend"
import { Effect, Layer } from "effect"
import {
  type CatalogSource,
  type EngineInput,
  RecommendationEngine,
} from "../../src/recommendations/RecommendationEngine.js"
import {
  engineProcessIds,
  liveEngineWorkers,
  RecommendationEngineWorker,
} from "../../src/recommendations/RecommendationEngineWorker.js"
import { BACKGROUND_NICE, SCHED_IDLE } from "../../src/threadPriority.js"

const NOW = Date.UTC(2026, 5, 15, 3, 0, 0)
const uuid = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`
const tracks: Array<LibraryTrack> = Array.from({ length: 200 }, (_, t) => ({
  id: TrackId.make(uuid(1, t)),
  artist_id: ArtistId.make(uuid(2, t % 20)),
  album_id: AlbumId.make(uuid(3, Math.floor(t / 10))),
  duration_ms: 200_000,
  genre: `Genre ${t % 7}`,
  year: 1990 + (t % 30),
  added_at_ms: NOW - t * 86_400_000,
}))
const input: EngineInput = {
  user: UserId.make("00000000-0000-4000-8000-00000000abcd"),
  timeZone: "Europe/Paris",
  plays: [],
  likes: { tracks: [], albums: [], artists: [] },
  tuning: SHIPPED_TUNING,
  signals: {},
}

const engineOf = (layer: Layer.Layer<RecommendationEngine>) =>
  Effect.map(
    Layer.build(layer),
    (context) => context.unsafeMap.get(RecommendationEngine.key) as RecommendationEngine["Type"],
  )

/** The test catalog at version v1, counting how often the engine loads it. */
const countedSource = (): CatalogSource & { readonly loads: () => number } => {
  let loads = 0
  return {
    version: "v1",
    load: Effect.sync(() => {
      loads++
      return tracks
    }),
    loads: () => loads,
  }
}

describe("recommendation engine processes when idle", () => {
  it.scopedLive(
    "stop after an idle period, and the next job starts them again with the catalog",
    () =>
      Effect.gen(function* () {
        const before = liveEngineWorkers()
        const engine = yield* engineOf(RecommendationEngineWorker(1, 300))
        const source = countedSource()
        expect(liveEngineWorkers()).toBe(before) // nothing started before the first job
        const first = yield* engine.rebuild(source, input)
        expect(liveEngineWorkers()).toBe(before + 1)
        expect(source.loads()).toBe(1)

        yield* Effect.sleep("1500 millis")
        expect(liveEngineWorkers()).toBe(before) // terminated after 300 ms without a job

        // A job after the idle period works: a fresh worker, sent the catalog again, answers the same.
        const again = yield* engine.rebuild(source, input)
        expect(source.loads()).toBe(2)
        expect(again.surfaces.length).toBe(first.surfaces.length)
        expect(liveEngineWorkers()).toBe(before + 1)
      }),
    { timeout: 60_000 },
  )
})

describe("recommendation engine process that dies", () => {
  it.scopedLive(
    "is replaced: the next job runs on a fresh process, sent the catalog again",
    () =>
      Effect.gen(function* () {
        const known = new Set(engineProcessIds())
        const engine = yield* engineOf(RecommendationEngineWorker(1))
        const source = countedSource()
        const first = yield* engine.rebuild(source, input)
        const [pid] = engineProcessIds().filter((id) => !known.has(id))
        expect(pid).toBeDefined()
        process.kill(pid!, "SIGKILL")
        // Until the pool has seen the exit (a fixed 300 ms was too short on a loaded machine: the next job went to
        // the dying process and failed with its exit).
        yield* Effect.sleep("20 millis").pipe(
          Effect.repeat({ until: () => !engineProcessIds().includes(pid!) }),
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the killed process never exited") }),
        )
        const again = yield* engine.rebuild(source, input)
        expect(again.surfaces.length).toBe(first.surfaces.length)
        expect(source.loads()).toBe(2)
        const now = engineProcessIds().filter((id) => !known.has(id))
        expect(now).toHaveLength(1)
        expect(now[0]).not.toBe(pid)
      }),
    { timeout: 60_000 },
  )
})

/** Each thread of a process, its nice value and scheduling policy (/proc/<pid>/task/<tid>/stat, fields 19, 41). */
const schedulingByThread = (pid: number | "self"): Map<number, { nice: number; policy: number }> => {
  const threads = new Map<number, { nice: number; policy: number }>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
      // Fields after the parenthesised command name start at field 3 (state).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      threads.set(Number(tid), { nice: Number(fields[16]), policy: Number(fields[38]) })
    } catch {
      // The thread ended while listing.
    }
  }
  return threads
}

describe("engine worker priority", () => {
  it.scopedLive(
    "a rebuild runs in a process whose every thread is in the idle class at nice 10, the HTTP event loop keeping its priority",
    () =>
      Effect.gen(function* () {
        const before = schedulingByThread("self")
        const known = new Set(engineProcessIds())
        const engine = yield* engineOf(RecommendationEngineWorker(1))
        const result = yield* engine.rebuild({ version: "v1", load: Effect.succeed(tracks) }, input)
        expect(result.surfaces.length).toBeGreaterThan(0)
        const started = engineProcessIds().filter((pid) => !known.has(pid))
        expect(started).toHaveLength(1)
        const engineThreads = [...schedulingByThread(started[0]!).values()]
        expect(engineThreads.length).toBeGreaterThan(1)
        expect(engineThreads.every(({ nice }) => nice === BACKGROUND_NICE)).toBe(true)
        expect(engineThreads.every(({ policy }) => policy === SCHED_IDLE)).toBe(true)
        // Nothing in this process was lowered: the event loop and V8's threads keep their priority and class.
        const after = schedulingByThread("self")
        const changed = [...after].filter(([tid, now]) => {
          const was = before.get(tid)
          return was !== undefined && (now.nice !== was.nice || now.policy !== was.policy)
        })
        expect(changed).toEqual([])
        expect(after.get(process.pid)).toEqual(before.get(process.pid))
      }),
    { timeout: 60_000 },
  )
})
