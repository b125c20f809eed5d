import { createHash } from "node:crypto"
import * as path from "node:path"
import { type AlbumId, ifNoneMatchHits, NotFound, type PlaylistId, type UserId } from "@tonearm/core"
import { Effect, Option } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { cachedFile } from "../diskCache.js"
import { imageLibrary } from "../imageLibrary.js"
import { CoverService } from "../library/index.js"
import { PlaylistRepository } from "./PlaylistRepository.js"
import { ensureOwned } from "./PlaylistsPolicy.js"

const SIZE = 600
const TILE = SIZE / 2

/**
 * A playlist's cover: a 2×2 collage of its first four distinct album covers, or the first cover alone when
 * it has fewer than four (as Spotify does). Made with sharp once per set of covers and kept on disk.
 */
export class PlaylistCover extends Effect.Service<PlaylistCover>()("@tonearm/server/PlaylistCover", {
  effect: Effect.gen(function* () {
    const playlists = yield* PlaylistRepository
    const covers = yield* CoverService
    const { dataDir } = yield* TonearmConfig
    const cacheDir = path.join(dataDir, "cache", "collages")

    const collage = Effect.fn("PlaylistCover.collage")(function* (
      user: UserId,
      id: PlaylistId,
      ifNoneMatch: string | undefined,
    ) {
      const playlist = yield* playlists.find(id)
      if (Option.isNone(playlist)) return yield* new NotFound({ message: "no such playlist", resource: "playlist" })
      yield* ensureOwned(playlist.value, user)
      const albums = yield* playlists.coverAlbums(id, 4)
      if (albums.length === 0)
        return yield* new NotFound({ message: "this playlist has no album art yet", resource: "image" })
      const tiles = albums.length >= 4 ? albums.slice(0, 4) : albums.slice(0, 1)
      const images = yield* Effect.forEach(tiles, (album) =>
        covers
          .albumCover(album as AlbumId, undefined, undefined)
          .pipe(
            Effect.flatMap((image) =>
              image._tag === "Image"
                ? Effect.succeed(image)
                : Effect.die(new Error("unconditional cover answered 304")),
            ),
          ),
      )
      const key = createHash("sha256")
        .update(images.map((image) => image.etag).join("|"))
        .digest("base64url")
        .slice(0, 32)
      const etag = `"${key}"`
      if (ifNoneMatchHits(ifNoneMatch, etag)) return { _tag: "NotModified", etag } as const
      const bytes = yield* Effect.tryPromise(() =>
        cachedFile(cacheDir, `${key}.jpg`, async () => {
          const sharp = await imageLibrary()
          return images.length === 1
            ? sharp(images[0]!.bytes).rotate().resize(SIZE, SIZE, { fit: "cover" }).jpeg({ quality: 85 }).toBuffer()
            : sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: "#000000" } })
                .composite(
                  await Promise.all(
                    images.map(async (image, index) => ({
                      input: await sharp(image.bytes).rotate().resize(TILE, TILE, { fit: "cover" }).toBuffer(),
                      left: (index % 2) * TILE,
                      top: Math.floor(index / 2) * TILE,
                    })),
                  ),
                )
                .jpeg({ quality: 85 })
                .toBuffer()
        }),
      ).pipe(
        Effect.catchAll((cause) =>
          Effect.logWarning(`collage of playlist ${id} failed: ${cause}`).pipe(
            Effect.zipRight(
              Effect.fail(new NotFound({ message: "this playlist's covers cannot be read", resource: "image" })),
            ),
          ),
        ),
      )
      return { _tag: "Image", etag, bytes } as const
    })

    return { collage } as const
  }),
  dependencies: [PlaylistRepository.Default],
}) {}
