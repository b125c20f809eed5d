import { promises as fs } from "node:fs"
import * as path from "node:path"
import {
  decodeLyricsText,
  LYRICS_SIDECAR_MAX_BYTES,
  LYRICS_SOURCE_ORDER,
  type Lyrics,
  type LyricsFound,
  lyricsFromSource,
  lyricsMatches,
  lyricsSearchQueries,
  NotFound,
  SEARCH_MAX,
  type Track,
  type TrackId,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { LibraryService } from "./LibraryService.js"
import { ParsePool } from "./ParsePool.js"
import { resolveInLibrary, TrackFiles } from "./TrackFiles.js"

const SIDECAR_EXTENSIONS = { lrc: ".lrc", txt: ".txt" } as const
type Sidecar = keyof typeof SIDECAR_EXTENSIONS

/** Tracks getLyrics tries, best match first, until one has lyrics (the same song on several albums). */
const SONG_CANDIDATES_TRIED = 5

/** The names in a folder listing that are `base` with the sidecar's extension, in any letter case (exact case first). */
const sidecarNames = (names: ReadonlyArray<string>, base: string) => {
  const found: Partial<Record<Sidecar, string>> = {}
  for (const sidecar of Object.keys(SIDECAR_EXTENSIONS) as Array<Sidecar>) {
    const extension = SIDECAR_EXTENSIONS[sidecar]
    const exact = `${base}${extension}`
    found[sidecar] = names.includes(exact)
      ? exact
      : names.find(
          (name) =>
            name.length === exact.length &&
            name.startsWith(base) &&
            name.slice(base.length).toLowerCase() === extension,
        )
  }
  return found
}

/** Up to `max` bytes of a file (undefined when it can no longer be read). */
const readBytes = (file: string, max: number) =>
  Effect.promise(async () => {
    try {
      const handle = await fs.open(file, "r")
      try {
        const bytes = new Uint8Array(max)
        let read = 0
        while (read < max) {
          const { bytesRead } = await handle.read(bytes, read, max - read, read)
          if (bytesRead === 0) break
          read += bytesRead
        }
        return bytes.subarray(0, read)
      } finally {
        await handle.close()
      }
    } catch {
      return undefined
    }
  })

/**
 * Lyrics, read on demand from a track's files (nothing is stored at scan time): the sidecars with the file
 * system, the tags by the parse workers (off the HTTP event loop); core's rules decide (`LYRICS_SOURCE_ORDER`).
 * Sources are read in that order and the reading stops at the first that holds lyrics.
 */
export class LyricsService extends Effect.Service<LyricsService>()("@tonearm/server/LyricsService", {
  effect: Effect.gen(function* () {
    const files = yield* TrackFiles
    const parser = yield* ParsePool
    const library = yield* LibraryService

    /** The sidecar files next to a track's file: its folder's names with the same base name. */
    const sidecarsOf = (storedPath: string) =>
      Effect.gen(function* () {
        const located = yield* files.locate(storedPath)
        // A library without a folder (removed meanwhile) has no sidecars; never another library's folder.
        const root = located.root ?? ""
        const relativePath = located.relative
        const folder = path.posix.dirname(relativePath)
        const base = path.posix.basename(relativePath, path.posix.extname(relativePath))
        const names =
          located.root === undefined
            ? []
            : yield* Effect.promise(() =>
                fs.readdir(path.join(root, ...folder.split("/"))).catch((): Array<string> => []),
              )
        return { root, folder, names: sidecarNames(names, base) }
      })

    /** A sidecar's text: inside the library (symlinks out of it are not followed), at most the cap, UTF-8. */
    const sidecarText = (root: string, folder: string, name: string | undefined) =>
      Effect.gen(function* () {
        if (name === undefined) return undefined
        const file = yield* resolveInLibrary(root, folder === "." ? name : `${folder}/${name}`)
        if (Option.isNone(file)) return undefined
        if (file.value.sizeBytes > LYRICS_SIDECAR_MAX_BYTES) {
          yield* Effect.logWarning(
            `lyrics: ${folder}/${name} is larger than ${LYRICS_SIDECAR_MAX_BYTES} bytes; skipped`,
          )
          return undefined
        }
        const bytes = yield* readBytes(file.value.absolutePath, file.value.sizeBytes)
        return bytes === undefined ? undefined : decodeLyricsText(bytes)
      })

    const embeddedTags = (absolutePath: string) =>
      Effect.gen(function* () {
        const parsed = yield* parser.readLyrics(absolutePath)
        if (parsed.ok) return parsed.tags
        yield* Effect.logWarning(`lyrics: could not read the tags of ${absolutePath}: ${parsed.error}`)
        return undefined
      })

    /** A track's lyrics: None when it has none; NotFound when the track is unknown or its file is missing. */
    const find = Effect.fn("LyricsService.find")(function* (id: TrackId) {
      const found = yield* files.trackFile(id)
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such track", resource: "track" })
      const file = found.value
      const sidecars = yield* sidecarsOf(file.relativePath)
      const readers: { readonly [K in keyof LyricsFound]-?: Effect.Effect<LyricsFound[K]> } = {
        lrc: sidecarText(sidecars.root, sidecars.folder, sidecars.names.lrc),
        embedded: embeddedTags(file.absolutePath),
        txt: sidecarText(sidecars.root, sidecars.folder, sidecars.names.txt),
      }
      for (const source of LYRICS_SOURCE_ORDER) {
        const content = yield* readers[source]
        if (content === undefined) continue
        const lyrics = lyricsFromSource(source, content)
        if (Option.isSome(lyrics)) return lyrics
      }
      return Option.none<Lyrics>()
    })

    /** `GET /api/tracks/{id}/lyrics`: a track without lyrics is 404 too. */
    const get = (id: TrackId) =>
      Effect.flatMap(find(id), (lyrics) =>
        Option.match(lyrics, {
          onNone: () => Effect.fail(new NotFound({ message: "this track has no lyrics", resource: "lyrics" })),
          onSome: Effect.succeed,
        }),
      )

    /**
     * Subsonic `getLyrics?artist=&title=`: the lyrics of the best matching present track (core's
     * `lyricsMatches` over the library search for the title), trying the next match while one has none.
     */
    const forSong = Effect.fn("LyricsService.forSong")(function* (artist: string | undefined, title: string) {
      const searches = yield* Effect.forEach(lyricsSearchQueries(title), (query) => library.search(query, SEARCH_MAX), {
        concurrency: "unbounded",
      })
      const tracks = [...new Map(searches.flatMap((found) => found.tracks).map((track) => [track.id, track])).values()]
      for (const track of lyricsMatches(tracks, { artist, title }).slice(0, SONG_CANDIDATES_TRIED)) {
        const lyrics = yield* find(track.id).pipe(Effect.catchTag("NotFound", () => Effect.succeed(Option.none())))
        if (Option.isSome(lyrics)) return Option.some({ track, lyrics: lyrics.value })
      }
      return Option.none<{ readonly track: Track; readonly lyrics: Lyrics }>()
    })

    return { find, get, forSong } as const
  }),
  dependencies: [TrackFiles.Default, LibraryService.Default],
}) {}
