import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  AlbumId,
  ArtistId,
  classicLyricsOf,
  NotFound,
  PlaylistId,
  parseCoverArtId,
  SubsonicFailure,
  type SubsonicPayload,
  structuredLyricsOf,
  TRANSCODE_FORMATS,
  TrackId,
  type TranscodeFormat,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { type ConditionalImage, imageResponse } from "../../http/conditionalImage.js"
import { CoverService, LibraryService, LyricsService } from "../../library/index.js"
import { PlaylistCover } from "../../playlists/index.js"
import { busyResponse, StreamService } from "../../streaming/index.js"
import { isUuid } from "../answers.js"
import { notFound, notFoundAs, notFoundCalled } from "../failures.js"
import { method, param, type SubsonicMethod } from "../method.js"

const COVER_CACHE_CONTROL = "max-age=86400, must-revalidate"
const TRANSCODE_FORMAT_SET: ReadonlySet<string> = new Set(TRANSCODE_FORMATS)

/** A number parameter for the transcoder; a bad value is ignored rather than failing playback. */
const positiveNumber = (raw: string | undefined) => {
  const n = raw === undefined ? Number.NaN : Number(raw)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

const audioParams = {
  id: param.id("track"),
  format: param.optional,
  maxBitRate: param.optional,
  timeOffset: param.optional,
}

/** stream and download: the original bytes with Range, or the transcoder's output when asked for. */
const audio = (
  { id, format, maxBitRate, timeOffset }: { id: string; format?: string; maxBitRate?: string; timeOffset?: string },
  download: boolean,
  userId: string,
) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const response = yield* (yield* StreamService)
      .respond(TrackId.make(id), {
        range: request.headers.range,
        ifRange: request.headers["if-range"],
        head: request.method === "HEAD",
        owner: Effect.succeed(`user:${userId}`),
        // download always serves the original file, as Subsonic servers do.
        transcode: download
          ? { format: "raw" }
          : {
              format:
                format !== undefined && TRANSCODE_FORMAT_SET.has(format) ? (format as TranscodeFormat) : undefined,
              maxBitRate: positiveNumber(maxBitRate),
              timeOffset: positiveNumber(timeOffset),
            },
      })
      .pipe(Effect.catchTag("TranscodersBusy", (error) => Effect.succeed(busyResponse(error))))
    if (!download) return response
    const track = (yield* (yield* LibraryService).tracksByIds([id]))[0]
    const name = track === undefined ? id : `${track.title}`.replace(/["\\\r\n]/g, "_")
    return HttpServerResponse.setHeader(
      response,
      "content-disposition",
      `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    )
  })

/** Media retrieval: audio, cover art and lyrics. */
export const mediaMethods: ReadonlyArray<SubsonicMethod> = [
  method("stream", audioParams, (user, params) => audio(params, false, user.id)),
  method("download", audioParams, (user, params) => audio(params, true, user.id)),

  /** An album's cover, an artist's image (else its first covered album's), a playlist's collage; `size` px. */
  method("getCoverArt", { id: param.required, size: param.optionalInt }, (user, { id, size }) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const covers = yield* CoverService
      const library = yield* LibraryService
      const collages = yield* PlaylistCover
      const ifNoneMatch = request.headers["if-none-match"]
      const ref = parseCoverArtId(id)
      const px = size === undefined || size <= 0 ? undefined : Math.min(2048, Math.max(16, size))
      const noCover = notFoundAs("Cover art")
      if (!isUuid(ref.id)) return yield* noCover
      const albumCover = (albumId: string) =>
        covers.albumCover(AlbumId.make(albumId), px, ifNoneMatch) as Effect.Effect<ConditionalImage, unknown>
      const image: Effect.Effect<ConditionalImage, unknown> = Effect.gen(function* () {
        switch (ref.kind) {
          case "album":
            return yield* albumCover(ref.id)
          case "playlist":
            return yield* collages.collage(user.id, PlaylistId.make(ref.id), ifNoneMatch)
          case "artist": {
            // The artist's own image (a local `artist.*`, else a provider's), else its first covered album's.
            const own = yield* Effect.option(covers.artistImage(ArtistId.make(ref.id), px, ifNoneMatch))
            if (Option.isSome(own)) return own.value
            const artist = yield* library.artist(ArtistId.make(ref.id))
            const covered = [...artist.albums, ...artist.appears_on].find((album) => album.cover_art_source !== null)
            if (covered === undefined) return yield* noCover
            return yield* albumCover(covered.id)
          }
          case "any": {
            const track = (yield* library.tracksByIds([ref.id]))[0]
            return yield* albumCover(track?.album_id ?? ref.id)
          }
        }
      })
      // Whatever is missing (the album, the artist, the playlist, the image itself): "Cover art not found".
      return yield* image.pipe(
        Effect.map((found) => imageResponse(found, COVER_CACHE_CONTROL)),
        Effect.catchIf(
          (error) => error instanceof NotFound || error instanceof SubsonicFailure,
          () => Effect.fail(noCover),
        ),
      )
    }),
  ),

  /** OpenSubsonic songLyrics: `lyricsList` with one structured entry, or none; 70 for an unknown song. */
  method("getLyricsBySongId", { id: param.id("track") }, (_, { id }) =>
    Effect.gen(function* () {
      const track = (yield* (yield* LibraryService).tracksByIds([id]))[0]
      if (track === undefined) return yield* notFound("track")
      const found = yield* notFoundCalled("Song")((yield* LyricsService).find(TrackId.make(id)))
      return {
        lyricsList: {
          structuredLyrics: Option.match(found, {
            onNone: () => [],
            onSome: (value) => [structuredLyricsOf(value, track)],
          }),
        },
      } satisfies SubsonicPayload
    }),
  ),

  /** The classic `getLyrics?artist=&title=`: the best matching present track's lyrics as text; empty when none. */
  method("getLyrics", { artist: param.optional, title: param.optional }, (_, { artist, title }) =>
    Effect.gen(function* () {
      if (title === undefined) return { lyrics: {} } satisfies SubsonicPayload
      const found = yield* (yield* LyricsService).forSong(artist, title)
      return {
        lyrics: Option.match(found, {
          onNone: () => ({}),
          onSome: (song) => classicLyricsOf(song.lyrics, song.track),
        }),
      } satisfies SubsonicPayload
    }),
  ),
]
