import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { LikesService } from "./LikesService.js"
import { ListeningStatsService } from "./ListeningStatsService.js"
import { PlaysService } from "./PlaysService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

export const PlaysHttpLive = HttpApiBuilder.group(TonearmApi, "plays", (handlers) =>
  Effect.gen(function* () {
    const plays = yield* PlaysService
    const stats = yield* ListeningStatsService
    return handlers
      .handle("report", ({ payload }) => Effect.flatMap(me, (user) => plays.report(user, payload)))
      .handle("history", ({ urlParams }) => Effect.flatMap(me, (user) => plays.history(user, urlParams)))
      .handle("stats", ({ urlParams }) => Effect.flatMap(me, (user) => stats.read(user, urlParams)))
      .handle("topTracks", ({ path }) => Effect.flatMap(me, (user) => plays.topTracks(user, path.id)))
  }),
)

export const LikesHttpLive = HttpApiBuilder.group(TonearmApi, "likes", (handlers) =>
  Effect.gen(function* () {
    const likes = yield* LikesService
    return handlers
      .handle("likeTrack", ({ path }) => Effect.flatMap(me, (user) => likes.like(user, "track", path.id)))
      .handle("unlikeTrack", ({ path }) => Effect.flatMap(me, (user) => likes.unlike(user, "track", path.id)))
      .handle("likeAlbum", ({ path }) => Effect.flatMap(me, (user) => likes.like(user, "album", path.id)))
      .handle("unlikeAlbum", ({ path }) => Effect.flatMap(me, (user) => likes.unlike(user, "album", path.id)))
      .handle("likeArtist", ({ path }) => Effect.flatMap(me, (user) => likes.like(user, "artist", path.id)))
      .handle("unlikeArtist", ({ path }) => Effect.flatMap(me, (user) => likes.unlike(user, "artist", path.id)))
      .handle("list", () => Effect.flatMap(me, likes.list))
  }),
)
