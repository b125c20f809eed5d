import { createHash } from "node:crypto"
import { promises as fs } from "node:fs"
import * as path from "node:path"
import { type AlbumId, type ArtistId, ifNoneMatchHits, NotFound } from "@tonearm/core"
import { Effect, Option } from "effect"
import { parseFile } from "music-metadata"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { cachedFile } from "../diskCache.js"
import { imageLibrary } from "../imageLibrary.js"
import { TrackFiles } from "./TrackFiles.js"

export type CoverImage =
  | { readonly _tag: "NotModified"; readonly etag: string }
  | { readonly _tag: "Image"; readonly etag: string; readonly contentType: string; readonly bytes: Uint8Array }

const CONTENT_TYPES: Record<string, string> = {
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
}

const contentTypeOf = (bytes: Uint8Array, hint: string | undefined) => {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "image/jpeg"
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return "image/png"
  if (bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return "image/webp"
  return (hint && CONTENT_TYPES[hint.toLowerCase().replace(/^image\//, "")]) || "application/octet-stream"
}

/**
 * Album covers from a sidecar image or a picture embedded in a track. Resized copies are made with sharp
 * once and kept in `<data dir>/cache/covers`, keyed by the source file's identity, so a changed cover
 * gets a new ETag and a new cached copy.
 */
export class CoverService extends Effect.Service<CoverService>()("@tonearm/server/CoverService", {
  effect: Effect.gen(function* () {
    const files = yield* TrackFiles
    const { dataDir } = yield* TonearmConfig
    const cacheDir = path.join(dataDir, "cache", "covers")

    const sourceBytes = (file: { absolutePath: string; source: string }) =>
      Effect.tryPromise(async () => {
        if (file.source !== "embedded") {
          const bytes = await fs.readFile(file.absolutePath)
          return { bytes: new Uint8Array(bytes), hint: path.extname(file.absolutePath).slice(1) }
        }
        const { common } = await parseFile(file.absolutePath, { skipCovers: false, duration: false })
        const picture =
          common.picture?.find((candidate) => candidate.type?.toLowerCase().includes("front")) ?? common.picture?.[0]
        if (picture === undefined) throw new Error("the embedded picture is gone")
        return { bytes: new Uint8Array(picture.data), hint: picture.format }
      })

    const resized = (key: string, bytes: Uint8Array, size: number) =>
      Effect.tryPromise(() =>
        cachedFile(cacheDir, `${key}.jpg`, async () =>
          (await imageLibrary())(bytes)
            .rotate()
            .resize(size, size, { fit: "inside", withoutEnlargement: true })
            .flatten({ background: "#000000" })
            .jpeg({ quality: 85, mozjpeg: true })
            .toBuffer(),
        ),
      )

    const albumCover = Effect.fn("CoverService.albumCover")(function* (
      id: AlbumId,
      size: number | undefined,
      ifNoneMatch: string | undefined,
    ) {
      const file = yield* files.coverFile(id)
      if (Option.isNone(file)) return yield* new NotFound({ message: "this album has no cover", resource: "image" })
      const { absolutePath, sizeBytes, mtimeMs, source } = file.value
      const key = createHash("sha256")
        .update(`${id}|${source}|${absolutePath}|${sizeBytes}|${mtimeMs}|${size ?? "original"}`)
        .digest("base64url")
        .slice(0, 32)
      const etag = `"${key}"`
      if (ifNoneMatchHits(ifNoneMatch, etag)) return { _tag: "NotModified", etag } satisfies CoverImage
      const original = yield* sourceBytes(file.value).pipe(
        Effect.catchAll((cause) =>
          Effect.logWarning(`cover of album ${id} unreadable: ${cause}`).pipe(
            Effect.zipRight(
              Effect.fail(new NotFound({ message: "this album's cover cannot be read", resource: "image" })),
            ),
          ),
        ),
      )
      if (size === undefined) {
        return {
          _tag: "Image",
          etag,
          contentType: contentTypeOf(original.bytes, original.hint),
          bytes: original.bytes,
        } satisfies CoverImage
      }
      const bytes = yield* resized(key, original.bytes, size).pipe(
        Effect.catchAll((cause) =>
          Effect.logWarning(`cover of album ${id} could not be resized: ${cause}`).pipe(
            Effect.zipRight(
              Effect.fail(new NotFound({ message: "this album's cover is not a readable image", resource: "image" })),
            ),
          ),
        ),
      )
      return { _tag: "Image", etag, contentType: "image/jpeg", bytes } satisfies CoverImage
    })

    /** An artist's image, like an album cover: ETag from the file's identity, resized copies cached. */
    const artistImage = Effect.fn("CoverService.artistImage")(function* (
      id: ArtistId,
      size: number | undefined,
      ifNoneMatch: string | undefined,
    ) {
      const file = yield* files.artistImageFile(id)
      if (Option.isNone(file)) return yield* new NotFound({ message: "this artist has no image", resource: "image" })
      const { absolutePath, sizeBytes, mtimeMs, source } = file.value
      const key = createHash("sha256")
        .update(`artist|${id}|${source}|${sizeBytes}|${mtimeMs}|${size ?? "original"}`)
        .digest("base64url")
        .slice(0, 32)
      const etag = `"${key}"`
      if (ifNoneMatchHits(ifNoneMatch, etag)) return { _tag: "NotModified", etag } satisfies CoverImage
      const bytes = yield* Effect.tryPromise(() => fs.readFile(absolutePath)).pipe(
        Effect.map((buffer) => new Uint8Array(buffer)),
        Effect.catchAll(() =>
          Effect.fail(new NotFound({ message: "this artist's image cannot be read", resource: "image" })),
        ),
      )
      if (size === undefined)
        return { _tag: "Image", etag, contentType: contentTypeOf(bytes, undefined), bytes } satisfies CoverImage
      const resizedBytes = yield* resized(key, bytes, size).pipe(
        Effect.catchAll(() =>
          Effect.fail(new NotFound({ message: "this artist's image is not a readable image", resource: "image" })),
        ),
      )
      return { _tag: "Image", etag, contentType: "image/jpeg", bytes: resizedBytes } satisfies CoverImage
    })

    return { albumCover, artistImage } as const
  }),
  dependencies: [TrackFiles.Default],
}) {}
