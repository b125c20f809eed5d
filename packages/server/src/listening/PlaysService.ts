import { SqlClient } from "@effect/sql"
import {
  type ArtistId,
  clampClientTime,
  clampLimit,
  clampPlayedMs,
  completionOf,
  isSkip,
  isSystemVariant,
  NotFound,
  normalizeDeviceClass,
  PLAY_HISTORY_DEFAULT,
  PLAY_HISTORY_MAX,
  PlayEventCreated,
  type PlayEventId,
  type PlayEventRequest,
  PlayHistory,
  PlayHistoryItem,
  type PlayOffline,
  type PlayStarted,
  rankLastPlayed,
  rankMostPlayed,
  TOP_TRACKS_LIMIT,
  TopTracks,
  type UserId,
} from "@tonearm/core"
import { DateTime, Effect, Either, Encoding, Option } from "effect"
import { AccountsService } from "../accounts/index.js"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { LibraryService } from "../library/index.js"
import { QuarantineService } from "../moderation/index.js"
import { PlaylistsService } from "../playlists/index.js"
import { ScrobblingService } from "../scrobbling/index.js"
import { PlayRepository } from "./PlayRepository.js"

const sourceOf = (raw: string | null | undefined) => {
  const trimmed = raw?.trim()
  return trimmed === undefined || trimmed === "" ? null : trimmed
}

const historyCursor = {
  encode: (startedAt: Date, id: string) => Encoding.encodeBase64Url(`${startedAt.toISOString()}|${id}`),
  decode: (cursor: string | undefined) => {
    if (cursor === undefined || cursor === "") return null
    const text = Either.getOrUndefined(Encoding.decodeBase64UrlString(cursor))
    const [at, id] = text?.split("|") ?? []
    const startedAt = at === undefined ? Number.NaN : Date.parse(at)
    return Number.isNaN(startedAt) || id === undefined ? null : { startedAt: new Date(startedAt), id }
  },
}

/**
 * Play events (contract "Play events"): the skip rule and device classes come from core; a play whose
 * source is a known system kind gets the pick kind of its snapshot row and joins that kind's rotation
 * state, in the same transaction as the play itself.
 */
export class PlaysService extends Effect.Service<PlaysService>()("@tonearm/server/PlaysService", {
  effect: Effect.gen(function* () {
    const plays = yield* PlayRepository
    const library = yield* LibraryService
    const accounts = yield* AccountsService
    const playlists = yield* PlaylistsService
    const quarantine = yield* QuarantineService
    const scrobbling = yield* ScrobblingService
    const sql = yield* SqlClient.SqlClient

    const trackFacts = (trackId: PlayStarted["track_id"]) =>
      Effect.flatMap(library.tracksByIds([trackId]), ([track]) =>
        track === undefined
          ? Effect.fail(new NotFound({ message: "no such track", resource: "track" }))
          : Effect.succeed(track),
      )

    /** Stamps the pick kind and advances the rotation when the source is a system snapshot. */
    const systemSource = (userId: UserId, source: string | null, trackId: PlayStarted["track_id"], now: Date) =>
      source !== null && isSystemVariant(source)
        ? playlists.recordSystemPlay(userId, source, trackId, now)
        : Effect.succeed(null)

    /**
     * Records one play in a transaction of its own: the user's plays are serialised, a live start closes the
     * open play, and a system source stamps the pick kind and joins the rotation.
     */
    const record = (
      userId: UserId,
      event: PlayStarted | PlayOffline,
      timing: (
        facts: { readonly duration_ms: number },
        now: Date,
        accountCreated: Date,
      ) => {
        readonly startedAt: Date
        readonly playedMs: number | null
      },
    ) =>
      Effect.gen(function* () {
        const facts = yield* trackFacts(event.track_id)
        const now = yield* currentDate
        const created = Option.getOrElse(yield* accounts.accountCreatedAt(userId), () => now)
        const { startedAt, playedMs } = timing(facts, now, created)
        const source = sourceOf(event.source)
        return yield* Effect.gen(function* () {
          yield* plays.lockUser(userId)
          if (event.type === "play_started") yield* plays.closeOpen(userId, now)
          const pickKind = yield* systemSource(userId, source, event.track_id, now)
          const id = yield* plays.insert({
            userId,
            trackId: event.track_id,
            artistId: facts.artist_id,
            albumId: facts.album_id,
            clientId: event.client_id,
            startedAt,
            endedAt: playedMs === null ? null : new Date(startedAt.getTime() + playedMs),
            durationPlayedMs: playedMs,
            trackDurationMs: facts.duration_ms,
            skipped: playedMs !== null && isSkip(playedMs, facts.duration_ms),
            completion: completionOf(playedMs, facts.duration_ms),
            source,
            pickKind,
            deviceClass: normalizeDeviceClass(event.device_class),
            now,
          })
          // Scrobbling out: a live start is announced as now playing (until the track would end); a complete
          // non-skip play is queued to be sent, in this transaction.
          if (playedMs === null)
            yield* scrobbling.enqueue(userId, id, "now_playing", now, new Date(now.getTime() + facts.duration_ms))
          else if (!isSkip(playedMs, facts.duration_ms)) yield* scrobbling.enqueue(userId, id, "listen", now)
          return new PlayEventCreated({ play_event_id: id })
        }).pipe(sql.withTransaction, orInternal("PlaysService.record"), Effect.tap(scrobbling.wake))
      })

    /** A live play: starts now, open until it ends or the next play starts. */
    const started = (userId: UserId, event: PlayStarted) =>
      record(userId, event, (_facts, now) => ({ startedAt: now, playedMs: null }))

    /** A complete past play; `at` is clamped to [account creation, now + 5 min], the duration to the track. */
    const offline = (userId: UserId, event: PlayOffline) =>
      record(userId, event, (facts, now, created) => ({
        startedAt: new Date(clampClientTime(DateTime.toEpochMillis(event.at), created.getTime(), now.getTime())),
        playedMs: clampPlayedMs(event.duration_played_ms, facts.duration_ms),
      }))

    /** play_ended applies the skip rule; play_skipped marks a skip whatever the position. */
    const ended = (userId: UserId, id: PlayEventId, playedMs: number, forcedSkip: boolean) =>
      Effect.gen(function* () {
        const play = yield* plays.find(userId, id)
        if (Option.isNone(play)) return yield* new NotFound({ message: "no such play event", resource: "play" })
        // The first end wins; a later play_ended for the same play changes nothing (a concurrent one is refused by
        // finish's own condition).
        if (play.value.duration_played_ms !== null && !forcedSkip) return
        const length = play.value.track_duration_ms
        const played = clampPlayedMs(playedMs, length)
        const now = yield* currentDate
        const skipped = forcedSkip || isSkip(played, length)
        const finished = yield* Effect.gen(function* () {
          const won = yield* plays.finish(
            play.value.id,
            { endedAt: now, durationPlayedMs: played, skipped, completion: completionOf(played, length) },
            !forcedSkip,
          )
          // Scrobbling out: a completed non-skip play is queued with its end, in one transaction.
          if (won && !skipped) yield* scrobbling.enqueue(userId, play.value.id, "listen", now)
          return won
        }).pipe(sql.withTransaction, orInternal("PlaysService.ended"))
        if (finished && !skipped) yield* scrobbling.wake
      })

    const report = Effect.fn("PlaysService.report")(function* (userId: UserId, event: PlayEventRequest) {
      switch (event.type) {
        case "play_started":
          return yield* started(userId, event)
        case "play_offline":
          return yield* offline(userId, event)
        case "play_ended":
          return yield* ended(userId, event.play_event_id, event.duration_played_ms, false)
        case "play_skipped":
          return yield* ended(userId, event.play_event_id, event.position_ms, true)
      }
    })

    const history = Effect.fn("PlaysService.history")(function* (
      userId: UserId,
      query: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
    ) {
      const limit = clampLimit(query.limit, PLAY_HISTORY_DEFAULT, PLAY_HISTORY_MAX)
      const rows = yield* plays.history(userId, historyCursor.decode(query.cursor), limit + 1)
      const page = rows.slice(0, limit)
      const last = page.at(-1)
      return new PlayHistory({
        items: page.map(
          (row) =>
            new PlayHistoryItem({
              id: row.id,
              track_id: row.track_id,
              started_at: row.started_at,
              duration_played_ms: row.duration_played_ms,
              skipped: row.skipped,
              source: row.source,
              pick_kind: row.pick_kind,
              device_class: row.device_class,
              client_id: row.client_id,
            }),
        ),
        cursor:
          rows.length > limit && last !== undefined
            ? historyCursor.encode(new Date(DateTime.toEpochMillis(last.started_at)), last.id)
            : null,
      })
    })

    const topTracks = Effect.fn("PlaysService.topTracks")(function* (userId: UserId, artistId: ArtistId) {
      const found = yield* library.artistsByIds([artistId])
      if (found.length === 0) return yield* new NotFound({ message: "no such artist", resource: "artist" })
      const tracks = yield* library.tracksByIds(yield* plays.topTracks(userId, artistId, TOP_TRACKS_LIMIT))
      return new TopTracks({ tracks: yield* quarantine.withoutFlagged(userId, tracks, (track) => track.id) })
    })

    /**
     * A Subsonic `scrobble` with submission=true: a completed play. It completes the user's open play of the
     * same track when there is one (the app reported it playing first), else records a complete past play at
     * `at` (the play_offline rules: the time clamped, the duration the whole track).
     */
    const completed = Effect.fn("PlaysService.completed")(function* (
      userId: UserId,
      event: Omit<PlayOffline, "type" | "duration_played_ms">,
    ) {
      const open = yield* plays.openPlayOf(userId, event.track_id)
      if (Option.isSome(open)) {
        return yield* ended(userId, open.value.id, open.value.track_duration_ms, false)
      }
      const facts = yield* trackFacts(event.track_id)
      yield* offline(userId, { ...event, type: "play_offline", duration_played_ms: facts.duration_ms })
    })

    /** Open plays of every user started in the last `minutes` (what Subsonic's getNowPlaying lists). */
    const nowPlaying = Effect.fn("PlaysService.nowPlaying")(function* (minutes: number) {
      const now = yield* currentDate
      const rows = yield* plays.openPlaysSince(new Date(now.getTime() - minutes * 60_000))
      return rows.map((row) => ({
        ...row,
        minutesAgo: Math.floor((now.getTime() - row.started_at.getTime()) / 60_000),
      }))
    })

    /** Each play's source, pick kind and outcome since `since`: what recommendation metrics roll up. */
    const outcomesSince = (userId: UserId, since: Date) => plays.metricsRows(userId, since)

    /** The user's plays summed per album and per artist: what Home's sections are ranked from. */
    const playStats = (userId: UserId) => plays.playStats(userId)
    /** Albums most and last played (Subsonic's `frequent` and `recent` lists), ranked as Home ranks them. */
    const mostPlayedAlbums = (userId: UserId, limit: number) =>
      Effect.map(playStats(userId), (stats) => rankMostPlayed(stats.albums).slice(0, limit))
    const lastPlayedAlbums = (userId: UserId, limit: number) =>
      Effect.map(playStats(userId), (stats) => rankLastPlayed(stats.albums).slice(0, limit))

    /**
     * Imported listens become plays (issue 26): the played time is clamped to the track (the track's length when
     * the export does not say), the skip rule applies to it, and nothing else happens: no rotation state, no pick
     * kind, no open play closed, no scrobble. Duplicates (same track, same second) are left out; answers how many
     * were added. Runs inside the caller's transaction.
     */
    const importPlays = (
      userId: UserId,
      source: string,
      listens: ReadonlyArray<{
        readonly trackId: string
        readonly startedAtMs: number
        readonly msPlayed: number | null
        readonly trackDurationMs: number
      }>,
    ) =>
      Effect.flatMap(currentDate, (now) =>
        plays.insertImported(
          userId,
          source,
          listens.map((listen) => {
            const played = clampPlayedMs(listen.msPlayed ?? listen.trackDurationMs, listen.trackDurationMs)
            return {
              trackId: listen.trackId,
              startedAtMs: listen.startedAtMs,
              playedMs: played,
              trackDurationMs: listen.trackDurationMs,
              skipped: isSkip(played, listen.trackDurationMs),
              completion: completionOf(played, listen.trackDurationMs),
            }
          }),
          now,
        ),
      )

    return {
      report,
      completed,
      nowPlaying,
      history,
      topTracks,
      outcomesSince,
      tasteRows: plays.tasteRows,
      playCountsSince: plays.playCountsSince,
      artistPlaysByListener: plays.artistPlaysByListener,
      /** Every user's plays since a date, for the admin trends. */
      trendRowsSince: plays.trendRowsSince,
      playStats,
      mostPlayedAlbums,
      lastPlayedAlbums,
      importPlays,
      /** The user's plays oldest first, a page at a time (the history export). */
      exportPage: plays.exportPage,
    } as const
  }),
  dependencies: [PlayRepository.Default],
}) {}
