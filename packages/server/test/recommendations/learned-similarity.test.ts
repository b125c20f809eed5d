import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { ArtistId } from "@tonearm/core"
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Option, Ref } from "effect"
import { taggedFile } from "../../fixtures/synthetic.js"
import {
  LEARNED_NIGHTLY_AGE_MS,
  LEARNED_SMALL_ARTISTS,
  LearnedSimilarityService,
  makeLearnedSimilarity,
} from "../../src/recommendations/LearnedSimilarityService.js"
import { RecommendationEngine } from "../../src/recommendations/RecommendationEngine.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { arrangePlays, type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"
import { world } from "./learnedWorld.js"

const root = await syntheticLibrary(200, 7)
/** Two artists whose genres nobody else has: by tags, similar to nobody, so only co-listening links them. */
const LONE = { seed: ["Lone Seed", "Gamelan"], stranger: ["Lone Stranger", "Throat Singing"] } as const
for (const [artist, genre] of Object.values(LONE))
  for (const no of [1, 2]) {
    const album = path.join(root, artist, "Alone")
    fs.mkdirSync(album, { recursive: true })
    const tags = { title: `Alone ${no}`, artist, albumArtist: artist, album: "Alone", track: { no }, genres: [genre] }
    fs.writeFileSync(path.join(album, `0${no}.mp3`), await taggedFile("mp3", tags))
  }

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("recommendations: learned artist similarity", (it) => {
  it.effect(
    "Discover suggestions: listeners who play two artists together make them learned neighbours (EASE + RP3beta), once the model is refitted",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const tracks = yield* libraryTracks
        const idOf = (name: string) =>
          Effect.map(sql<{ id: string }>`SELECT id FROM artists WHERE name = ${name}`, (rows) => rows[0]!.id)
        const seed = yield* idOf(LONE.seed[0])
        const stranger = yield* idOf(LONE.stranger[0])
        const tracksOf = (artist: string): ReadonlyArray<LibraryTrackRow> =>
          tracks.filter((track) => track.artist_id === artist)
        expect(tracksOf(seed)).toHaveLength(2)

        // Gina plays only the lone seed: nobody co-listens, no tag is shared, nothing to suggest from it.
        const gina = yield* aUser("gina")
        yield* arrangePlays(gina.user.id, tracksOf(seed), { times: 4 })
        yield* gina.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
        const before = yield* gina.client.discover.suggestions()
        expect(before.map((suggestion) => suggestion.artist_id)).not.toContain(stranger)

        // Two listeners play the seed and the stranger together: the learned similarity links them.
        for (const name of ["erin", "frank"]) {
          const listener = yield* aUser(name)
          yield* arrangePlays(listener.user.id, [...tracksOf(seed), ...tracksOf(stranger)], { times: 4 })
        }
        // The next fit (nightly, or after a scan or an import) sees them; a read never fits.
        yield* (yield* LearnedSimilarityService).refit
        yield* gina.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
        const after = yield* gina.client.discover.suggestions()
        const found = after.find((suggestion) => suggestion.artist_id === stranger)
        expect(found).toBeDefined()
        expect(found).toMatchObject({ in_library: true, name: LONE.stranger[0] })
        expect(found!.score).toBeGreaterThan(0)
        // And the artist page's similar list says the same.
        const similar = yield* gina.client.radio.similarArtists({ path: { id: ArtistId.make(seed) } })
        expect(similar[0]?.id).toBe(stranger)
      }),
  )
})

const engineOf = (layer: Layer.Layer<RecommendationEngine>) =>
  Effect.map(
    Layer.build(layer),
    (context) => context.unsafeMap.get(RecommendationEngine.key) as RecommendationEngine["Type"],
  )

/** The in-process engine whose fits wait until the test opens the current gate. */
const gatedEngine = Effect.gen(function* () {
  const engine = yield* engineOf(RecommendationEngine.inProcess)
  const gate = yield* Ref.make(yield* Deferred.make<void>())
  const fitsStarted = yield* Ref.make(0)
  const gated: RecommendationEngine["Type"] = {
    ...engine,
    fitSimilarity: (source, rows, key) =>
      Ref.update(fitsStarted, (n) => n + 1).pipe(
        Effect.zipRight(Effect.flatMap(Ref.get(gate), Deferred.await)),
        Effect.zipRight(engine.fitSimilarity(source, rows, key)),
      ),
  }
  return {
    engine: gated,
    fitsStarted: Ref.get(fitsStarted),
    open: Effect.flatMap(Ref.get(gate), (deferred) => Deferred.succeed(deferred, undefined)),
    close: Effect.flatMap(Deferred.make<void>(), (deferred) => Ref.set(gate, deferred)),
  }
})

/** A clock the test moves by hand (the background fits forked under it read it too). */
const manualClock = () => {
  let now = Date.UTC(2026, 10, 27, 3, 0, 0)
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: () => Effect.void,
  }
  return {
    clock,
    advance: (ms: number) =>
      Effect.sync(() => {
        now += ms
      }),
  }
}

/** Yields until `done` holds (the background fit runs on another fiber of this process). */
const until = (done: Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 10_000 && !(yield* done); i++) yield* Effect.yieldNow()
    expect(yield* done).toBe(true)
  })

describe("learned similarity: fitted off the read path", () => {
  it.scoped("a read right after a day passes returns without waiting for the fit", () => {
    const time = manualClock()
    return Effect.gen(function* () {
      const { source, rows, artist } = world(LEARNED_SMALL_ARTISTS + 100, 150, 12)
      const gated = yield* gatedEngine
      const learned = yield* makeLearnedSimilarity(gated.engine, Effect.succeed({ catalog: source, coListens: rows }))
      const query = { seeds: [artist(0)], limit: 10 }

      // Never fitted: the read answers at once (the tag cosine alone: this library has no tags) and starts a fit.
      expect(yield* learned.current).toBeUndefined()
      yield* until(Effect.map(gated.fitsStarted, (n) => n === 1))
      expect((yield* gated.engine.similarArtists(source, query, undefined))[0]!.similar).toEqual([])
      // Reads while that fit runs start no other.
      expect(yield* learned.current).toBeUndefined()
      expect(yield* gated.fitsStarted).toBe(1)
      yield* gated.open
      yield* until(Effect.map(learned.fittedAt, (at) => at !== undefined))
      const first = (yield* learned.current)!
      expect(first).toBeDefined()
      const neighbours = (yield* gated.engine.similarArtists(source, query, first))[0]!.similar
      expect(neighbours.length).toBeGreaterThan(0)

      // A day later the nightly run refits; a read during that fit uses the last model and does not wait.
      yield* gated.close
      yield* time.advance(Duration.toMillis(Duration.days(1)))
      const nightly = yield* Effect.fork(learned.refitIfOlderThan(LEARNED_NIGHTLY_AGE_MS))
      yield* until(Effect.map(gated.fitsStarted, (n) => n === 2))
      const during = yield* learned.current
      expect(during?.key).toBe(first.key)
      expect((yield* gated.engine.similarArtists(source, query, during))[0]!.similar).toEqual(neighbours)
      expect(Option.isNone(yield* Fiber.poll(nightly))).toBe(true)
      yield* gated.open
      expect(yield* Fiber.join(nightly)).toBe(true)
      expect((yield* learned.current)?.key).not.toBe(first.key)
      // The same night's later zones reuse it.
      expect(yield* learned.refitIfOlderThan(LEARNED_NIGHTLY_AGE_MS)).toBe(false)
    }).pipe(Effect.withClock(time.clock))
  })

  it.scoped("a small server's read refits first when its rows changed since the fit, and only then", () =>
    Effect.gen(function* () {
      const { source, rows } = world(40, 10, 6)
      const gated = yield* gatedEngine
      yield* gated.open
      const played = yield* Ref.make<ReadonlyArray<(typeof rows)[number]>>(rows)
      const learned = yield* makeLearnedSimilarity(
        gated.engine,
        Effect.map(Ref.get(played), (coListens) => ({ catalog: source, coListens })),
      )
      // Never fitted: a small server's first read fits, and waits for it.
      const first = (yield* learned.current)!
      expect(first).toBeDefined()
      expect(yield* gated.fitsStarted).toBe(1)
      // The same rows: the same model, no fit.
      expect((yield* learned.current)?.key).toBe(first.key)
      expect(yield* gated.fitsStarted).toBe(1)
      // A new listener's play: the next read refits before it answers.
      yield* Ref.set(played, [...rows, { user_id: "u-new", artist_id: rows[0]!.artist_id, plays: 1 }])
      const second = (yield* learned.current)!
      expect(second.key).not.toBe(first.key)
      expect(yield* gated.fitsStarted).toBe(2)
    }),
  )
})
