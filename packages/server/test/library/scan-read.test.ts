import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Effect, Layer, Stream } from "effect"
import { SAMPLE } from "../../fixtures/wild.js"
import { type ParsedFile, ParsePool } from "../../src/library/ParsePool.js"
import type { DirtyFolder } from "../../src/library/scan/plan.js"
import {
  BATCH_WINDOW,
  FOLDERS_PER_BATCH,
  inBatches,
  type ParsedFolder,
  readFolders,
} from "../../src/library/scan/read.js"
import type { FoundFile } from "../../src/library/walk.js"
import { makeLibrary, wildSamples } from "../support/library.js"
import { tags } from "./scanPhases.js"

/**
 * A pool that answers each file with its own name as the title, after `delayOf(paths)` milliseconds, so a
 * test decides which jobs finish first. Two files per job: folders span jobs.
 */
const fakePool = (delayOf: (paths: ReadonlyArray<string>) => number) =>
  Layer.succeed(ParsePool, {
    parseMany: (paths) =>
      Effect.succeed(paths.map((file): ParsedFile => ({ ok: true, tags: tags({ title: path.basename(file) }) }))).pipe(
        Effect.delay(delayOf(paths)),
      ),
    readLyrics: () => Effect.succeed({ ok: true, tags: [] }),
    workers: 2,
    filesPerJob: 2,
    jobsInFlight: 4,
  })

const dirty = (folder: string, names: ReadonlyArray<string>): DirtyFolder => ({
  folder: {
    path: folder,
    files: names.map((name): FoundFile => ({ path: `${folder}/${name}`, sizeBytes: 100, mtimeMs: 1 })),
  },
  sidecar: undefined,
})

const titles = (folder: ParsedFolder) =>
  folder.outcomes.map((outcome) => (outcome._tag === "Scanned" ? outcome.file.title : "failed"))

describe("scan read", () => {
  it.live(
    "each folder is emitted once, as soon as its last file is read, with its files in order, whatever job they fell in",
    () =>
      Effect.gen(function* () {
        // Jobs: [a/1 a/2] [a/3 b/1] [b/2 c/1]; the first job is slowest, so b and c finish before a.
        const folders = [dirty("a", ["1", "2", "3"]), dirty("b", ["1", "2"]), dirty("c", ["1"])]
        const emitted = yield* readFolders("/library", folders).pipe(
          Stream.runCollect,
          Effect.provide(fakePool((paths) => (paths.includes("/library/a/1") ? 60 : 5))),
        )
        expect(Chunk.toReadonlyArray(emitted).map((folder) => [folder.folder, titles(folder)])).toEqual([
          ["b", ["1", "2"]],
          ["c", ["1"]],
          ["a", ["1", "2", "3"]],
        ])
      }),
  )

  it.live("with the real parse pool, readable files become tracks and unreadable ones scan errors", () =>
    Effect.gen(function* () {
      const wild = (yield* Effect.promise(wildSamples)).root
      const root = makeLibrary({
        "One/a.flac": path.join(wild, SAMPLE.flac),
        "One/b.mp3": path.join(wild, SAMPLE.mp3),
        "Two/c.mp3": path.join(wild, SAMPLE.cutMp3),
      })
      fs.writeFileSync(path.join(root, "Two/junk.mp3"), "this is not audio at all, only text with an mp3 name")
      const found = (folder: string, names: ReadonlyArray<string>): DirtyFolder => ({
        folder: {
          path: folder,
          files: names.map((name) => {
            const stat = fs.statSync(path.join(root, folder, name))
            return { path: `${folder}/${name}`, sizeBytes: stat.size, mtimeMs: Math.floor(stat.mtimeMs) }
          }),
        },
        sidecar: undefined,
      })
      const emitted = yield* readFolders(root, [
        found("One", ["a.flac", "b.mp3"]),
        found("Two", ["c.mp3", "junk.mp3"]),
      ]).pipe(Stream.runCollect, Effect.provide(ParsePool.layer(1)))
      const byFolder = new Map(Chunk.toReadonlyArray(emitted).map((folder) => [folder.folder, folder.outcomes]))
      expect(byFolder.get("One")!.map((outcome) => outcome._tag)).toEqual(["Scanned", "Scanned"])
      expect(byFolder.get("Two")!.map((outcome) => outcome._tag)).toEqual(["Scanned", "Failed"])
      const junk = byFolder.get("Two")![1]!
      expect(junk._tag === "Failed" && junk.error.path).toBe("Two/junk.mp3")
      fs.rmSync(root, { recursive: true, force: true })
    }),
  )

  it.live("a batch holds at most 40 folders: a stream that is ready at once is cut by size", () =>
    Effect.gen(function* () {
      expect(FOLDERS_PER_BATCH).toBe(40)
      const batches = yield* Stream.range(1, 100).pipe(inBatches(), Stream.runCollect)
      expect(Chunk.toReadonlyArray(batches).map(Chunk.size)).toEqual([40, 40, 20])
      expect(Chunk.toReadonlyArray(batches).flatMap(Chunk.toReadonlyArray)).toEqual(
        Array.from({ length: 100 }, (_, index) => index + 1),
      )
    }),
  )

  it.live("a batch waits at most a quarter second: a slow stream is cut by time, not held for a full batch", () =>
    Effect.gen(function* () {
      expect(BATCH_WINDOW.toJSON()).toMatchObject({ _id: "Duration", _tag: "Millis", millis: 250 })
      const started = yield* Clock.currentTimeMillis
      // Three folders at once, then a pause far longer than the window, then two more.
      const slow = Stream.concat(
        Stream.make(1, 2, 3),
        Stream.fromEffect(Effect.sleep("1500 millis")).pipe(Stream.flatMap(() => Stream.make(4, 5))),
      )
      const arrivals = yield* slow.pipe(
        inBatches(),
        Stream.mapEffect((batch) =>
          Effect.map(Clock.currentTimeMillis, (now) => ({ batch: Chunk.toReadonlyArray(batch), at: now - started })),
        ),
        Stream.runCollect,
      )
      const [first, ...rest] = Chunk.toReadonlyArray(arrivals)
      expect(first!.batch).toEqual([1, 2, 3])
      expect(first!.at).toBeLessThan(1000)
      // What comes after the pause goes in later batches (after an idle window the first one goes at once).
      expect(rest.flatMap(({ batch }) => batch)).toEqual([4, 5])
      for (const { at } of rest) expect(at).toBeGreaterThanOrEqual(1500)
    }),
  )
})
