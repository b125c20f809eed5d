import { Schema } from "effect"
import { AlbumRef, Artist, Track } from "../library/Library.js"
import { makeLocalTime } from "./localTime.js"

/**
 * A listener's own stats (GET /api/me/listening-stats): top artists, albums, tracks and genres, time listened,
 * the listening clock and discoveries over a period. The operator's metrics (skip rates by source) stay on the
 * admin side.
 */
export const ListeningPeriod = Schema.Literal("week", "month", "year", "all")
export type ListeningPeriod = typeof ListeningPeriod.Type

/** Rolling windows ending now (as Last.fm counts them), so a Monday morning's "week" is not empty. */
export const LISTENING_PERIOD_DAYS: Readonly<Record<Exclude<ListeningPeriod, "all">, number>> = {
  week: 7,
  month: 30,
  year: 365,
}

/** The first instant of a period ending at `now`; null for all time. */
export const listeningPeriodStart = (period: ListeningPeriod, now: Date): Date | null =>
  period === "all" ? null : new Date(now.getTime() - LISTENING_PERIOD_DAYS[period] * 86_400_000)

/** Entries in each top list, and the newest discoveries listed (the count covers them all). */
export const LISTENING_TOP_LIMIT = 10
export const LISTENING_DISCOVERIES_LIMIT = 20

/**
 * Which plays count (contract "Play events"): top lists, the play count and the clock count unskipped plays
 * (the skip rule's flag); time listened counts every play's listened time, skips included. A play closed by
 * a newer one (no reported duration) counts its wall time, capped at the track's length; an open play counts
 * nothing yet. The SQL of the listening repository computes exactly this.
 */
export const listenedMsOf = (play: {
  readonly durationPlayedMs: number | null
  readonly startedAtMs: number
  readonly endedAtMs: number | null
  readonly trackDurationMs: number
}): number =>
  play.durationPlayedMs ??
  (play.endedAtMs === null ? 0 : Math.max(0, Math.min(play.endedAtMs - play.startedAtMs, play.trackDurationMs)))

/** Plays are counted into clock buckets of 15 minutes: every zone's offset is a whole number of them. */
export const CLOCK_BUCKET_MS = 15 * 60_000

/**
 * The listening clock: unskipped plays per (ISO weekday, hour) in `zone`, as 7 rows (Monday first) of 24
 * hours, from plays counted per UTC bucket of CLOCK_BUCKET_MS (bucket = floor(epoch ms / CLOCK_BUCKET_MS)).
 */
export const listeningClock = (
  buckets: ReadonlyArray<{ readonly bucket: number; readonly plays: number }>,
  zone: string,
): Array<Array<number>> => {
  const local = makeLocalTime(zone)
  const clock = Array.from({ length: 7 }, () => new Array<number>(24).fill(0))
  for (const { bucket, plays } of buckets) {
    const { isoWeekday, hour } = local(bucket * CLOCK_BUCKET_MS)
    clock[isoWeekday - 1]![hour]! += plays
  }
  return clock
}

const Count = Schema.NonNegativeInt
const Milliseconds = Schema.NonNegative

export const ListeningStatsQuery = Schema.Struct({
  /** Default `week`. */
  period: Schema.optional(ListeningPeriod),
  /** An IANA zone for the clock; default the account's time zone. */
  tz: Schema.optional(Schema.String.pipe(Schema.maxLength(64))),
})
export type ListeningStatsQuery = typeof ListeningStatsQuery.Type

export class TopArtist extends Schema.Class<TopArtist>("TopArtist")({
  artist: Artist,
  plays: Count,
  listened_ms: Milliseconds,
}) {}
export class TopAlbum extends Schema.Class<TopAlbum>("TopAlbum")({
  album: AlbumRef,
  plays: Count,
  listened_ms: Milliseconds,
}) {}
export class TopTrack extends Schema.Class<TopTrack>("TopTrack")({
  track: Track,
  plays: Count,
  listened_ms: Milliseconds,
}) {}
export class TopGenre extends Schema.Class<TopGenre>("TopGenre")({
  genre: Schema.String,
  plays: Count,
  listened_ms: Milliseconds,
}) {}
export class Discovery extends Schema.Class<Discovery>("Discovery")({
  artist: Artist,
  first_played_at: Schema.DateTimeUtc,
  /** Unskipped plays of the artist in the period. */
  plays: Count,
}) {}

export class ListeningStats extends Schema.Class<ListeningStats>("ListeningStats")({
  period: ListeningPeriod,
  time_zone: Schema.String,
  /** null for all time. */
  from: Schema.NullOr(Schema.DateTimeUtc),
  to: Schema.DateTimeUtc,
  /** Unskipped plays. */
  plays: Count,
  skips: Count,
  listened_ms: Milliseconds,
  top_artists: Schema.Array(TopArtist),
  top_albums: Schema.Array(TopAlbum),
  top_tracks: Schema.Array(TopTrack),
  top_genres: Schema.Array(TopGenre),
  /** 7 rows, Monday first, of 24 hours in `time_zone`: unskipped plays started in that hour. */
  clock: Schema.Array(Schema.Array(Count)),
  /** Artists first played (ever) inside the period. */
  discoveries_count: Count,
  /** The newest of them, newest first. */
  discoveries: Schema.Array(Discovery),
}) {}
