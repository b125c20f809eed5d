import {
  CastToken,
  clampStreamTokenLifetime,
  extensionForFormat,
  InvalidTrackId,
  mimeForFormat,
  NotFound,
  signStreamToken,
  TrackId,
} from "@tonearm/core"
import { Clock, Effect, Option, Redacted, Schema } from "effect"
import { TrackFiles } from "../library/index.js"
import { StreamSecret } from "./StreamSecret.js"

const isTrackId = Schema.is(TrackId)

/** Signed, time-limited stream URLs that a network speaker can fetch without a session. */
export class CastService extends Effect.Service<CastService>()("@tonearm/server/CastService", {
  effect: Effect.gen(function* () {
    const files = yield* TrackFiles
    const secret = yield* StreamSecret

    const streamToken = Effect.fn("CastService.streamToken")(function* (input: {
      readonly trackId: string
      readonly expSeconds: number | undefined
      readonly origin: { readonly scheme: string; readonly host: string }
    }) {
      if (!isTrackId(input.trackId)) {
        return yield* new InvalidTrackId({ message: "track_id must be a UUID" })
      }
      const track = yield* files.track(input.trackId)
      if (Option.isNone(track)) return yield* new NotFound({ message: "no such track", resource: "track" })
      const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const exp = nowSeconds + clampStreamTokenLifetime(input.expSeconds)
      const token = signStreamToken(Redacted.value(secret.key), input.trackId, exp)
      const extension = extensionForFormat(track.value.file_format)
      const url = `${input.origin.scheme}://${input.origin.host}/api/tracks/${input.trackId}/stream.${extension}?exp=${exp}&token=${token}`
      return new CastToken({ token, exp, url, mime: mimeForFormat(track.value.file_format), title: track.value.title })
    })

    return { streamToken } as const
  }),
  dependencies: [TrackFiles.Default],
}) {}
