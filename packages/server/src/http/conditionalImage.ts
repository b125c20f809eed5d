import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** What an image service answers to a conditional GET: "you have it" or the bytes (JPEG unless it says). */
export type ConditionalImage =
  | { readonly _tag: "NotModified"; readonly etag: string }
  | { readonly _tag: "Image"; readonly etag: string; readonly bytes: Uint8Array; readonly contentType?: string }

/** 304 or 200 with the image; both carry the ETag and the route's Cache-Control so caches revalidate alike. */
export const imageResponse = (image: ConditionalImage, cacheControl: string): HttpServerResponse.HttpServerResponse => {
  const headers = { etag: image.etag, "cache-control": cacheControl }
  return image._tag === "NotModified"
    ? HttpServerResponse.empty({ status: 304, headers })
    : HttpServerResponse.uint8Array(image.bytes, { contentType: image.contentType ?? "image/jpeg", headers })
}

/** An image route: hands the request's If-None-Match to `produce` and answers with `imageResponse`. */
export const conditionalImage = <E, R>(
  cacheControl: string,
  produce: (ifNoneMatch: string | undefined) => Effect.Effect<ConditionalImage, E, R>,
) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.map(produce(request.headers["if-none-match"]), (image) => imageResponse(image, cacheControl)),
  )
