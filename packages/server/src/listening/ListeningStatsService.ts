import {
  Discovery,
  InvalidTimezone,
  LISTENING_DISCOVERIES_LIMIT,
  LISTENING_TOP_LIMIT,
  ListeningStats,
  type ListeningStatsQuery,
  listeningClock,
  listeningPeriodStart,
  loadableTimeZone,
  TopAlbum,
  TopArtist,
  TopGenre,
  TopTrack,
  type UserId,
} from "@tonearm/core"
import { DateTime, Effect } from "effect"
import { AccountsService } from "../accounts/index.js"
import { currentDate } from "../clock.js"
import { LibraryService } from "../library/index.js"
import { ListeningStatsRepository, type Totals } from "./ListeningStatsRepository.js"

/** Ranked ids are fetched with this headroom, so entries gone from the library still leave a full list. */
const HEADROOM = 2

/** A listener's own stats (GET /api/me/listening-stats): the period's bounds and zone, then four aggregates. */
export class ListeningStatsService extends Effect.Service<ListeningStatsService>()(
  "@tonearm/server/ListeningStatsService",
  {
    effect: Effect.gen(function* () {
      const stats = yield* ListeningStatsRepository
      const library = yield* LibraryService
      const accounts = yield* AccountsService

      const read = Effect.fn("ListeningStatsService.read")(function* (user: UserId, query: ListeningStatsQuery) {
        const period = query.period ?? "week"
        const zone = query.tz === undefined ? (yield* accounts.me(user)).timezone : loadableTimeZone(query.tz)
        if (zone === undefined)
          return yield* new InvalidTimezone({
            message: `tz: ${JSON.stringify(query.tz)} is not an IANA time zone name`,
          })
        const to = yield* currentDate
        const window = { user, from: listeningPeriodStart(period, to), to }
        const [totals, genres, buckets, discoveries] = yield* Effect.all(
          [
            stats.totals(window, LISTENING_TOP_LIMIT * HEADROOM),
            stats.genres(window, LISTENING_TOP_LIMIT),
            stats.clockBuckets(window),
            stats.discoveries(window, LISTENING_DISCOVERIES_LIMIT * HEADROOM),
          ],
          { concurrency: 2 },
        )
        const of = (kind: Totals["kind"]) => totals.filter((row) => row.kind === kind)
        const byId = (rows: ReadonlyArray<Totals>) => new Map(rows.map((row) => [row.id!, row]))
        const tracks = byId(of("track"))
        const albums = byId(of("album"))
        const artists = byId(of("artist"))
        const firsts = new Map(discoveries.map((row) => [row.artist_id, row]))
        const [trackRows, albumRows, artistRows, discoveredRows] = yield* Effect.all(
          [
            library.tracksByIds([...tracks.keys()]),
            library.albumsByIds([...albums.keys()]),
            library.artistsByIds([...artists.keys()]),
            library.artistsByIds([...firsts.keys()]),
          ],
          { concurrency: 2 },
        )
        const total = of("total")[0]
        return new ListeningStats({
          period,
          time_zone: zone,
          from: window.from === null ? null : DateTime.unsafeFromDate(window.from),
          to: DateTime.unsafeFromDate(to),
          plays: total?.plays ?? 0,
          skips: total?.skips ?? 0,
          listened_ms: total?.listened_ms ?? 0,
          top_tracks: trackRows.slice(0, LISTENING_TOP_LIMIT).map((track) => {
            const row = tracks.get(track.id)!
            return new TopTrack({ track, plays: row.plays, listened_ms: row.listened_ms })
          }),
          top_albums: albumRows.slice(0, LISTENING_TOP_LIMIT).map((album) => {
            const row = albums.get(album.id)!
            return new TopAlbum({ album, plays: row.plays, listened_ms: row.listened_ms })
          }),
          top_artists: artistRows.slice(0, LISTENING_TOP_LIMIT).map((artist) => {
            const row = artists.get(artist.id)!
            return new TopArtist({ artist, plays: row.plays, listened_ms: row.listened_ms })
          }),
          top_genres: genres.map((row) => new TopGenre(row)),
          clock: listeningClock(buckets, zone),
          discoveries_count: discoveries[0]?.total ?? 0,
          discoveries: discoveredRows.slice(0, LISTENING_DISCOVERIES_LIMIT).map((artist) => {
            const row = firsts.get(artist.id)!
            return new Discovery({
              artist,
              first_played_at: DateTime.unsafeFromDate(row.first_played_at),
              plays: row.plays,
            })
          }),
        })
      })

      return { read } as const
    }),
    dependencies: [ListeningStatsRepository.Default],
  },
) {}
