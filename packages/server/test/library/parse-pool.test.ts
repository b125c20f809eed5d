import * as fs from "node:fs"
import * as path from "node:path"
import { expect, it } from "@effect/vitest"
import { isAudioPath } from "@tonearm/core"
import { Array as Arr, Effect } from "effect"
import { parseFile } from "music-metadata"
import { type ParsedFile, ParsePool } from "../../src/library/ParsePool.js"
import { fixtureLibrary, wildSamples } from "../support/library.js"

const audioFilesUnder = (root: string): Array<string> =>
  fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && isAudioPath(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()

/**
 * What music-metadata's own parseFile reads for the fields the scanner keeps, asked the same way: the duration
 * of Ogg and ADTS files by reading them through, and of any other file whose header gave none by a second pass.
 */
const referenceOf = async (file: string) => {
  const duration = [".aac", ".ogg", ".oga", ".opus"].some((extension) => file.toLowerCase().endsWith(extension))
  try {
    let metadata = await parseFile(file, { duration, skipPostHeaders: true })
    const { title, artist, album } = metadata.common
    if (title === undefined && artist === undefined && album === undefined) {
      metadata = await parseFile(file, { duration })
    }
    let { common, format } = metadata
    if (!duration && format.duration === undefined && format.container !== undefined) {
      const scanned = await parseFile(file, { duration: true, skipCovers: true, skipPostHeaders: true })
      if (scanned.format.duration !== undefined) {
        format = { ...format, duration: scanned.format.duration, bitrate: format.bitrate ?? scanned.format.bitrate }
      }
    }
    return {
      ok: true,
      container: format.container ?? null,
      duration: format.duration ?? null,
      bitrate: format.bitrate ?? null,
      title: common.title ?? null,
      artist: common.artist ?? null,
      albumartist: common.albumartist ?? null,
      album: common.album ?? null,
      track: common.track?.no ?? null,
      disk: common.disk?.no ?? null,
      year: common.year ?? null,
      genre: common.genre ?? [],
      hasPicture: (common.picture?.length ?? 0) > 0,
    }
  } catch {
    return { ok: false }
  }
}

const comparable = (parsed: ParsedFile) =>
  parsed.ok
    ? {
        ok: true,
        container: parsed.tags.container,
        duration: parsed.tags.duration,
        bitrate: parsed.tags.bitrate,
        title: parsed.tags.title,
        artist: parsed.tags.artist,
        albumartist: parsed.tags.albumartist,
        album: parsed.tags.album,
        track: parsed.tags.track,
        disk: parsed.tags.disk,
        year: parsed.tags.year,
        genre: parsed.tags.genre,
        hasPicture: parsed.tags.hasPicture,
      }
    : { ok: false }

it.live(
  "the parse workers' cached reads give exactly what music-metadata reads from the file, for every wild and fixture file",
  () =>
    Effect.gen(function* () {
      const { root } = yield* Effect.promise(fixtureLibrary)
      const wild = yield* Effect.promise(wildSamples)
      const wildFiles = audioFilesUnder(wild.root)
      expect(wildFiles).toHaveLength(wild.manifest.files.length) // every odd case, junk included
      const files = [...wildFiles, ...audioFilesUnder(root)]
      const pool = yield* ParsePool
      const answers = (yield* Effect.forEach(Arr.chunksOf(files, pool.filesPerJob), pool.parseMany, {
        concurrency: pool.jobsInFlight,
      })).flat()
      const references = yield* Effect.promise(() => Promise.all(files.map(referenceOf)))
      expect(answers.filter((answer) => !answer.ok).length).toBeGreaterThan(0) // the corrupt ones
      files.forEach((file, index) => {
        expect({ file, ...comparable(answers[index]!) }).toEqual({ file, ...references[index] })
      })
    }).pipe(Effect.provide(ParsePool.layer(2))),
  120_000,
)
