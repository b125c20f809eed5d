import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Context, Data, Effect, Layer, Option, Schema } from "effect"
import { RequestsService } from "../requests/index.js"
import type { TrackForManager } from "./QuarantineRepository.js"

/** No acquisition manager is configured. */
export class ManagerNotConfigured extends Data.TaggedError("ManagerNotConfigured")<{}> {}
/** The manager could not be reached or refused the call. */
export class ManagerUnavailable extends Data.TaggedError("ManagerUnavailable")<{ readonly message: string }> {}

/** Where the manager is: its base URL and API key. */
export interface ManagerConnection {
  readonly url: string
  readonly apiKey: string
}

/**
 * The acquisition manager as moderation sees it: delete one library file through it. Answers "deleted",
 * or "unknown_file" when the manager holds no file that matches.
 */
export class AcquisitionManager extends Context.Tag("@tonearm/server/AcquisitionManager")<
  AcquisitionManager,
  {
    readonly deleteTrackFile: (
      track: TrackForManager,
    ) => Effect.Effect<"deleted" | "unknown_file", ManagerNotConfigured | ManagerUnavailable>
  }
>() {
  /**
   * The Lidarr-compatible manager (API v1) the request workflow talks to: its URL and key are read from the
   * admin's manager settings (`PUT /api/admin/manager`) on every call, so a change applies at once. No URL:
   * not configured.
   */
  static readonly Live = Layer.effect(
    AcquisitionManager,
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const requests = yield* RequestsService
      const connection = requests.managerSettings.pipe(
        Effect.map((settings) =>
          settings.url === null || settings.url.trim() === ""
            ? Option.none<ManagerConnection>()
            : Option.some({ url: settings.url.trim(), apiKey: settings.api_key ?? "" }),
        ),
      )
      return lidarr(client, connection)
    }),
  )
}

const LidarrArtist = Schema.Struct({ id: Schema.Number, artistName: Schema.optional(Schema.String) })
const LidarrTrackFile = Schema.Struct({ id: Schema.Number, path: Schema.optional(Schema.NullOr(Schema.String)) })

/** Path segments from the end that two paths share (`a/b/c.flac` and `/music/b/c.flac` share 2). */
export const sharedTail = (left: string, right: string): number => {
  const a = left.split(/[\\/]+/).filter((part) => part !== "")
  const b = right.split(/[\\/]+/).filter((part) => part !== "")
  let n = 0
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++
  return n
}

/**
 * Lidarr API v1: the artist by MusicBrainz id (`GET /api/v1/artist?mbId=`), else by name among all
 * artists; its track files (`GET /api/v1/trackfile?artistId=`); the file whose path shares the longest
 * tail with ours (at least the file name; the manager's root differs from the library's); then
 * `DELETE /api/v1/trackfile/{id}`.
 */
export const lidarr = (
  client: HttpClient.HttpClient,
  connection: Effect.Effect<Option.Option<ManagerConnection>, unknown>,
): Context.Tag.Service<AcquisitionManager> => ({
  deleteTrackFile: (track) =>
    Effect.gen(function* () {
      const found = yield* connection.pipe(
        Effect.mapError(() => new ManagerUnavailable({ message: "the manager settings could not be read" })),
      )
      if (Option.isNone(found)) return yield* new ManagerNotConfigured()
      const base = found.value.url.replace(/\/+$/, "")
      const unavailable = (error: unknown) =>
        error instanceof ManagerUnavailable
          ? error
          : new ManagerUnavailable({ message: `the manager could not be reached: ${String(error)}` })
      const send = (request: HttpClientRequest.HttpClientRequest) =>
        client.execute(request.pipe(HttpClientRequest.setHeader("X-Api-Key", found.value.apiKey))).pipe(
          Effect.flatMap((response) =>
            response.status >= 200 && response.status < 300
              ? Effect.succeed(response)
              : Effect.fail(new ManagerUnavailable({ message: `the manager answered ${response.status}` })),
          ),
          Effect.timeout("15 seconds"),
          Effect.mapError(unavailable),
        )
      const call = <A, I>(
        request: HttpClientRequest.HttpClientRequest,
        schema: Schema.Schema<A, I>,
      ): Effect.Effect<A, ManagerUnavailable> =>
        send(request).pipe(
          Effect.flatMap((response) => response.json),
          Effect.flatMap(Schema.decodeUnknown(schema)),
          Effect.mapError(unavailable),
        )
      const artists =
        track.artist_mbid !== null && track.artist_mbid !== ""
          ? yield* call(
              HttpClientRequest.get(`${base}/api/v1/artist`).pipe(
                HttpClientRequest.setUrlParam("mbId", track.artist_mbid),
              ),
              Schema.Array(LidarrArtist),
            )
          : (yield* call(HttpClientRequest.get(`${base}/api/v1/artist`), Schema.Array(LidarrArtist))).filter(
              (artist) => artist.artistName?.toLowerCase() === track.artist_name.toLowerCase(),
            )
      let best: { id: number; tail: number } | undefined
      for (const artist of artists) {
        const files = yield* call(
          HttpClientRequest.get(`${base}/api/v1/trackfile`).pipe(
            HttpClientRequest.setUrlParam("artistId", String(artist.id)),
          ),
          Schema.Array(LidarrTrackFile),
        )
        for (const file of files) {
          const tail = file.path ? sharedTail(file.path, track.path) : 0
          if (tail > 0 && (best === undefined || tail > best.tail)) best = { id: file.id, tail }
        }
      }
      if (best === undefined) return "unknown_file" as const
      yield* send(HttpClientRequest.del(`${base}/api/v1/trackfile/${best.id}`))
      return "deleted" as const
    }),
})
