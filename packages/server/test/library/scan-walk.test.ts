import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { walk } from "../../src/library/scan/walk.js"
import { writeBatch } from "../../src/library/scan/write.js"
import { failed, noIndex, parsedFolder, ScanPhasesLive, scanned } from "./scanPhases.js"

/** A library of placeholder files: the walk stats files, it never parses them. */
const placeholderLibrary = (files: ReadonlyArray<string>) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-walk-"))
  for (const relative of files) {
    fs.mkdirSync(path.join(root, path.dirname(relative)), { recursive: true })
    fs.writeFileSync(path.join(root, relative), "x".repeat(100))
  }
  return root
}

layer(ScanPhasesLive, { timeout: "60 seconds" })("scan walk", (it) => {
  it.effect("the walk answers the audio folders and covers on disk together with what the index holds", () =>
    Effect.gen(function* () {
      const root = placeholderLibrary(["Walk/01.mp3", "Walk/02.mp3", "Walk/cover.jpg", "Box/CD1/01.flac", "notes.txt"])
      yield* writeBatch(noIndex, false, [
        parsedFolder("Walk", [scanned("Walk/01.mp3", { title: "Indexed" }), failed("Walk/02.mp3")]),
      ])
      const { walked, known } = yield* walk(root)
      expect([...walked.folders.keys()].sort()).toEqual(["Box/CD1", "Walk"])
      expect(walked.folders.get("Walk")!.files.map((file) => [file.path, file.sizeBytes])).toEqual([
        ["Walk/01.mp3", 100],
        ["Walk/02.mp3", 100],
      ])
      expect(walked.sidecars.get("Walk")?.path).toBe("Walk/cover.jpg")
      expect([...known.tracks.keys()]).toEqual(["Walk/01.mp3"])
      expect([...known.errors.keys()]).toEqual(["Walk/02.mp3"])
      expect(known.folders.get("Walk")).toEqual({ sidecar: null, sidecarMtimeMs: null })
      fs.rmSync(root, { recursive: true, force: true })
    }),
  )

  it.effect("a missing library folder fails the walk with a one-line reason", () =>
    Effect.gen(function* () {
      const error = yield* walk(path.join(os.tmpdir(), `tonearm-no-such-walk-${process.pid}`)).pipe(Effect.flip)
      expect(error._tag).toBe("LibraryFolderUnreadable")
      expect(error.message).not.toContain("\n")
    }),
  )
})
