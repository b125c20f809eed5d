import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { Scanner } from "../../src/library/index.js"

/** A temporary library folder; `files` maps a relative destination to a source file to copy. */
export const makeLibrary = (files: Record<string, string>): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-lib-"))
  for (const [relative, source] of Object.entries(files)) {
    const target = path.join(root, relative)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(source, target)
  }
  return root
}

/** Runs a scan to completion through the scanner service and returns its summary. */
export const scanNow = (full = false) =>
  Effect.flatMap(Scanner, (scanner) => scanner.scan({ full })).pipe(
    Effect.map(Option.getOrThrowWith(() => new Error("another scan was running"))),
  )

/** A fresh copy of the project's fixture library (real audio made with ffmpeg) and its ground truth. */
export const fixtureLibrary = async () => {
  const { generateFixtureLibrary } = await import("../../fixtures/audio.js")
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-fixtures-"))
  const manifest = await generateFixtureLibrary(root)
  return { root, manifest }
}

/**
 * The wild library's cached folder (files as taggers and encoders leave them, made with ffmpeg; `SAMPLE` names
 * the streaming samples) and its ground truth. Read-only: copy files out with `makeLibrary`, or use `wildLibrary`.
 */
export const wildSamples = async () => {
  const { wildLibraryCache } = await import("../../fixtures/wild.js")
  return wildLibraryCache()
}

/** A fresh copy of the wild library and its ground truth. */
export const wildLibrary = async () => {
  const { generateWildLibrary } = await import("../../fixtures/wild.js")
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-wild-"))
  const manifest = await generateWildLibrary(root)
  return { root, manifest }
}

/** The release_date Tonearm stores for an album: a full date as is, a year alone as its 1st of January. */
export const expectedReleaseDate = (album: { readonly release_date: string | null; readonly year: number }) =>
  album.release_date ?? (album.year > 0 ? `${album.year}-01-01` : null)
