import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { type AcquisitionRequest, type ManagerSettings, resolveProfileId } from "@tonearm/core"
import { Data, Duration, Effect, Schema } from "effect"
import { enrichmentSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"

/** The manager could not be asked or did not take the add (down, timed out, refused, garbage). */
export class ManagerUnreachable extends Data.TaggedError("ManagerUnreachable")<{ readonly message: string }> {}

const Profile = Schema.Struct({ id: Schema.Number })
const RootFolder = Schema.Struct({ path: Schema.String })
const Image = Schema.Struct({
  coverType: Schema.optional(Schema.String),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  remoteUrl: Schema.optional(Schema.NullOr(Schema.String)),
})
const ArtistLookup = Schema.Array(
  Schema.Struct({
    foreignArtistId: Schema.optional(Schema.String),
    artistName: Schema.optional(Schema.String),
    images: Schema.optionalWith(Schema.Array(Image), { default: () => [] }),
  }),
)
const AlbumLookup = Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** How Lidarr (API v1) says an entity is there already: a validation failure naming it. */
const alreadyExists = (status: number, body: string) =>
  status === 409 ||
  (status === 400 && /ArtistExistsValidator|AlbumExistsValidator|already been added|already exists/i.test(body))

/** Preferred artist art: a poster, else any image, its remote (absolute) URL first. */
const imageOf = (images: ReadonlyArray<typeof Image.Type>): string | undefined => {
  const ordered = [...images].sort(
    (a, b) =>
      (a.coverType === "poster" ? 0 : a.coverType === "fanart" ? 1 : 2) -
      (b.coverType === "poster" ? 0 : b.coverType === "fanart" ? 1 : 2),
  )
  for (const image of ordered) {
    const url = image.remoteUrl ?? image.url
    if (typeof url === "string" && /^https?:\/\//.test(url)) return url
  }
  return undefined
}

/**
 * The music-acquisition manager over Lidarr's API v1 (`X-Api-Key`): profile and root-folder resolution,
 * adding an artist or album (an already-exists answer counts as added), and artist art for suggestions.
 */
export class ManagerClient extends Effect.Service<ManagerClient>()("@tonearm/server/ManagerClient", {
  effect: Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const settings = enrichmentSettingsOf(yield* TonearmConfig)
    const timeout = Duration.millis(settings.managerTimeoutMs)

    const send = (manager: ManagerSettings, request: HttpClientRequest.HttpClientRequest) =>
      http
        .execute(
          request.pipe(
            HttpClientRequest.prependUrl(`${(manager.url ?? "").replace(/\/+$/, "")}/api/v1`),
            HttpClientRequest.setHeader("X-Api-Key", manager.api_key ?? ""),
            HttpClientRequest.acceptJson,
          ),
        )
        .pipe(
          Effect.flatMap((response) => Effect.map(response.text, (text) => ({ response, text }))),
          Effect.timeoutFail({ duration: timeout, onTimeout: () => new ManagerUnreachable({ message: "timed out" }) }),
          Effect.mapError((error) =>
            error instanceof ManagerUnreachable ? error : new ManagerUnreachable({ message: error.message }),
          ),
        )

    const okJson = <A, I>(
      answer: { response: HttpClientResponse.HttpClientResponse; text: string },
      schema: Schema.Schema<A, I>,
    ) =>
      answer.response.status >= 200 && answer.response.status < 300
        ? Schema.decodeUnknown(Schema.parseJson(schema))(answer.text).pipe(
            Effect.mapError(() => new ManagerUnreachable({ message: "the manager's answer is unreadable" })),
          )
        : Effect.fail(new ManagerUnreachable({ message: `the manager answered ${answer.response.status}` }))

    const getJson = <A, I>(
      manager: ManagerSettings,
      path: string,
      schema: Schema.Schema<A, I>,
      params?: Record<string, string>,
    ) =>
      Effect.flatMap(
        send(manager, HttpClientRequest.get(path, params === undefined ? undefined : { urlParams: params })),
        (answer) => okJson(answer, schema),
      )

    /** The configured profiles and root folder where the manager still has them, else its first ones. */
    const resolveDefaults = (manager: ManagerSettings) =>
      Effect.gen(function* () {
        const [quality, metadata, roots] = yield* Effect.all(
          [
            getJson(manager, "/qualityprofile", Schema.Array(Profile)),
            getJson(manager, "/metadataprofile", Schema.Array(Profile)),
            getJson(manager, "/rootfolder", Schema.Array(RootFolder)),
          ],
          { concurrency: 3 },
        )
        const qualityProfileId = resolveProfileId(
          manager.quality_profile_id ?? -1,
          quality.map((p) => p.id),
        )
        const metadataProfileId = resolveProfileId(
          manager.metadata_profile_id ?? -1,
          metadata.map((p) => p.id),
        )
        const rootFolderPath = roots.some((root) => root.path === manager.root_folder_path)
          ? manager.root_folder_path!
          : (roots[0]?.path ?? manager.root_folder_path)
        if (qualityProfileId === undefined || metadataProfileId === undefined || rootFolderPath === null)
          return yield* new ManagerUnreachable({
            message: "the manager has no quality or metadata profile or root folder",
          })
        return { qualityProfileId, metadataProfileId, rootFolderPath }
      })

    /** Sends the add once; succeeds when the manager took it or already had it. */
    const add = (manager: ManagerSettings, request: AcquisitionRequest) =>
      Effect.gen(function* () {
        if (manager.url === null || manager.url.trim() === "")
          return yield* new ManagerUnreachable({ message: "no manager is configured" })
        const defaults = yield* resolveDefaults(manager)
        let body: unknown
        if (request.kind === "artist") {
          body = {
            foreignArtistId: request.mbid,
            artistName: request.name,
            qualityProfileId: defaults.qualityProfileId,
            metadataProfileId: defaults.metadataProfileId,
            rootFolderPath: defaults.rootFolderPath,
            monitored: true,
            addOptions: { monitor: "all", searchForMissingAlbums: true },
          }
        } else {
          const found = yield* getJson(manager, "/album/lookup", AlbumLookup, { term: `lidarr:${request.mbid}` })
          const album = found[0]
          if (album === undefined)
            return yield* new ManagerUnreachable({ message: "the manager does not know this album" })
          const artist = (album.artist ?? {}) as Record<string, unknown>
          body = {
            ...album,
            monitored: true,
            addOptions: { searchForNewAlbum: true },
            artist: {
              ...artist,
              qualityProfileId: defaults.qualityProfileId,
              metadataProfileId: defaults.metadataProfileId,
              rootFolderPath: defaults.rootFolderPath,
              monitored: true,
              addOptions: { monitor: "none", searchForMissingAlbums: false },
            },
          }
        }
        const answer = yield* send(
          manager,
          HttpClientRequest.post(request.kind === "artist" ? "/artist" : "/album").pipe(
            HttpClientRequest.bodyUnsafeJson(body),
          ),
        )
        const status = answer.response.status
        if ((status >= 200 && status < 300) || alreadyExists(status, answer.text)) return
        return yield* new ManagerUnreachable({
          message: `the manager answered ${status}: ${answer.text.slice(0, 200)}`,
        })
      })

    /** The artist's art from the manager's lookup, matched on foreign artist id = the MusicBrainz id. */
    const artistImage = (manager: ManagerSettings, mbid: string) =>
      Effect.map(getJson(manager, "/artist/lookup", ArtistLookup, { term: `lidarr:${mbid}` }), (found) => {
        const match = found.find((artist) => artist.foreignArtistId === mbid)
        return match === undefined ? undefined : imageOf(match.images)
      })

    return { add, artistImage } as const
  }),
}) {}
