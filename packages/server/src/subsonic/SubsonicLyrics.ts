import {
  classicLyricsOf,
  SubsonicErrorCode,
  SubsonicFailure,
  type SubsonicPayload,
  structuredLyricsOf,
  TrackId,
} from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { LibraryService, LyricsService } from "../library/index.js"
import type { SubsonicParams } from "./params.js"

const isUuid = Schema.is(Schema.UUID)
const songNotFound = new SubsonicFailure({ code: SubsonicErrorCode.notFound, message: "Song not found" })

/**
 * The lyrics methods, over the lyrics service the JSON route uses: OpenSubsonic songLyrics
 * (`getLyricsBySongId`) and the classic `getLyrics`. No rule lives here, only the protocol's shapes.
 */
export const subsonicLyricsMethods = Effect.gen(function* () {
  const lyrics = yield* LyricsService
  const library = yield* LibraryService

  /** `getLyricsBySongId?id=`: `lyricsList` with one structured entry, or none; error 70 for an unknown song. */
  const getLyricsBySongId = (params: SubsonicParams) =>
    Effect.gen(function* () {
      const id = yield* params.required("id")
      if (!isUuid(id)) return yield* songNotFound
      const track = (yield* library.tracksByIds([id]))[0]
      if (track === undefined) return yield* songNotFound
      const found = yield* lyrics
        .find(TrackId.make(id))
        .pipe(Effect.catchTag("NotFound", () => Effect.fail(songNotFound)))
      return {
        lyricsList: {
          structuredLyrics: Option.match(found, {
            onNone: () => [],
            onSome: (value) => [structuredLyricsOf(value, track)],
          }),
        },
      } satisfies SubsonicPayload
    })

  /** `getLyrics?artist=&title=`: the best matching present track's lyrics as text; an empty element when none. */
  const getLyrics = (params: SubsonicParams) =>
    Effect.gen(function* () {
      const title = params.get("title")
      if (title === undefined) return { lyrics: {} } satisfies SubsonicPayload
      const found = yield* lyrics.forSong(params.get("artist"), title)
      return {
        lyrics: Option.match(found, {
          onNone: () => ({}),
          onSome: (song) => classicLyricsOf(song.lyrics, song.track),
        }),
      } satisfies SubsonicPayload
    })

  return { getLyricsBySongId, getLyrics } as const
})
