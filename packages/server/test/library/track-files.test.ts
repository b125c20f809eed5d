import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { resolveInLibrary } from "../../src/library/TrackFiles.js"

// Real files and symlinks: a root, a track that is a link inside it, and a file outside it.
const base = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-track-files-"))
const root = path.join(base, "library")
fs.mkdirSync(path.join(root, "Artist"), { recursive: true })
fs.writeFileSync(path.join(root, "Artist", "first.mp3"), Buffer.alloc(100))
fs.writeFileSync(path.join(root, "Artist", "second.mp3"), Buffer.alloc(200))
fs.writeFileSync(path.join(base, "outside.mp3"), Buffer.alloc(300))
const link = path.join(root, "Artist", "track.mp3")
fs.symlinkSync(path.join(root, "Artist", "first.mp3"), link)

const repoint = (target: string) => {
  fs.rmSync(link)
  fs.symlinkSync(target, link)
}
/** Past the second a real path is reused for (a real timer: these tests run on the test clock). */
const pastReuse = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_100)))
const sizeOf = Effect.map(
  resolveInLibrary(root, "Artist/track.mp3"),
  Option.map((file) => file.sizeBytes),
)

describe("track files (real paths reused for a second)", () => {
  it.effect("a track's link re-pointed inside the library is followed within a second", () =>
    Effect.gen(function* () {
      expect(yield* sizeOf).toEqual(Option.some(100))
      repoint(path.join(root, "Artist", "second.mp3"))
      yield* pastReuse
      expect(yield* sizeOf).toEqual(Option.some(200))
    }),
  )

  it.effect("a link re-pointed out of the library is refused within a second, and never serves the outside", () =>
    Effect.gen(function* () {
      repoint(path.join(root, "Artist", "first.mp3"))
      yield* pastReuse
      expect(yield* sizeOf).toEqual(Option.some(100))
      repoint(path.join(base, "outside.mp3"))
      // Inside the second the link may still resolve to what it was: a file inside the library, never outside.
      const meanwhile = yield* sizeOf
      expect(Option.getOrElse(meanwhile, () => 0)).not.toBe(300)
      yield* pastReuse
      expect(yield* sizeOf).toEqual(Option.none())
    }),
  )
})
