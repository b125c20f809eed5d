import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { ListeningPeriod, ListeningStats } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(360, 5)

const DAY = 86_400_000

interface Play {
  readonly track: LibraryTrackRow
  readonly at: number
  /** Omitted: played to the end. null: closed by the next play after `wallMs` (no reported duration). */
  readonly played?: number | null
  readonly wallMs?: number
  readonly skipped?: boolean
}

const insertPlays = (user: string, plays: ReadonlyArray<Play>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(
      plays,
      (play) => {
        const played = play.played === undefined ? play.track.duration_ms : play.played
        const ended = new Date(play.at + (play.wallMs ?? played ?? 0))
        return sql`
          INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
            duration_played_ms, track_duration_ms, skipped, completion, created_at)
          VALUES (${user}, ${play.track.id}, ${play.track.artist_id}, ${play.track.album_id}, 'test', ${new Date(play.at)},
            ${ended}, ${played}, ${play.track.duration_ms}, ${play.skipped ?? false}, null, now())`
      },
      { discard: true },
    ),
  )

const statsOf = (who: SignedIn, period?: ListeningPeriod, tz?: string) =>
  who.client.plays.stats({
    urlParams: { ...(period === undefined ? {} : { period }), ...(tz === undefined ? {} : { tz }) },
  })

const ids = <A extends { readonly plays: number }>(rows: ReadonlyArray<A>, id: (row: A) => string) =>
  rows.map((row) => [id(row), row.plays])

/** The expected clock cell of an instant, computed with Intl (independently of core's localTime). */
const cellOf = (at: number, zone: string): [number, number] => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", hour: "2-digit", hour12: false })
      .formatToParts(new Date(at))
      .map((part) => [part.type, part.value]),
  )
  const weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(parts.weekday!)
  return [weekday, Number(parts.hour) % 24]
}

const clockOf = (instants: ReadonlyArray<number>, zone: string) => {
  const clock = Array.from({ length: 7 }, () => new Array<number>(24).fill(0))
  for (const at of instants) {
    const [weekday, hour] = cellOf(at, zone)
    clock[weekday]![hour]! += 1
  }
  return clock
}

/**
 * Fresh Alice and Bob with a known history. `t`: one track of each of six different artists, a … f;
 * `weekUnskipped`: the start of each of Alice's unskipped plays this week.
 */
const aliceAndBobWithPlays = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const bob = yield* aUser("bob")
  const tracks = yield* libraryTracks
  const byArtist = new Map<string, LibraryTrackRow>()
  for (const track of tracks) if (!byArtist.has(track.artist_id)) byArtist.set(track.artist_id, track)
  const picked = [...byArtist.values()]
  expect(picked.length).toBeGreaterThanOrEqual(6)
  const [a, b, c, d, e, f] = picked as [LibraryTrackRow, ...Array<LibraryTrackRow>]
  const t = { a, b: b!, c: c!, d: d!, e: e!, f: f! }
  const now = Date.now()
  const h = 3_600_000
  const weekUnskipped = [now - 2 * DAY, now - 2 * DAY + h, now - 2 * DAY + 2 * h, now - 3 * DAY, now - 3 * DAY + h]
  yield* insertPlays(alice.user.id, [
    // a: three full plays and one closed by the next play after 10 s (counted up to the track's length),
    // all two days ago (a new artist).
    { track: t.a, at: weekUnskipped[0]! },
    { track: t.a, at: weekUnskipped[1]! },
    { track: t.a, at: weekUnskipped[2]! },
    { track: t.a, at: now - 2 * DAY + 3 * h, played: null, wallMs: 10_000 },
    // b: two full plays and a skip three days ago; first heard 100 days ago.
    { track: t.b, at: weekUnskipped[3]! },
    { track: t.b, at: weekUnskipped[4]! },
    { track: t.b, at: now - 3 * DAY + 2 * h, played: 100, skipped: true },
    { track: t.b, at: now - 100 * DAY },
    // c: once 20 days ago (month); d: five times 200 days ago (year); e: once 500 days ago (all time).
    { track: t.c, at: now - 20 * DAY },
    ...Array.from({ length: 5 }, (_, i) => ({ track: t.d, at: now - 200 * DAY + i * h })),
    { track: t.e, at: now - 500 * DAY },
    // f: just outside the week (7 days and 5 minutes ago).
    { track: t.f, at: now - 7 * DAY - 5 * 60_000 },
  ])
  weekUnskipped.push(now - 2 * DAY + 3 * h)
  // Bob plays c a lot this week: none of it is Alice's.
  yield* insertPlays(
    bob.user.id,
    Array.from({ length: 10 }, (_, i) => ({ track: t.c, at: now - DAY + i * 60_000 })),
  )
  return { alice, bob, t, weekUnskipped }
})

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("listening stats (GET /api/me/listening-stats)", (it) => {
  it.effect("week: exact top lists, plays, skips, time listened; another user's plays never count", () =>
    Effect.gen(function* () {
      const { alice, t } = yield* aliceAndBobWithPlays

      const week = yield* statsOf(alice, "week")
      expect(week.period).toBe("week")
      expect(week.time_zone).toBe("UTC")
      expect(ids(week.top_tracks, (row) => row.track.id)).toEqual([
        [t.a.id, 4],
        [t.b.id, 2],
      ])
      expect(ids(week.top_artists, (row) => row.artist.id)).toEqual([
        [t.a.artist_id, 4],
        [t.b.artist_id, 2],
      ])
      expect(ids(week.top_albums, (row) => row.album.id)).toEqual([
        [t.a.album_id, 4],
        [t.b.album_id, 2],
      ])
      expect(week.plays).toBe(6)
      expect(week.skips).toBe(1)
      const closed = Math.min(10_000, t.a.duration_ms)
      expect(week.listened_ms).toBe(3 * t.a.duration_ms + closed + 2 * t.b.duration_ms + 100)
      expect(week.top_tracks[0]!.listened_ms).toBe(3 * t.a.duration_ms + closed)
      // Genres: every unskipped play counts toward each genre of its track.
      const genres = new Map<string, number>()
      for (const [track, plays] of [
        [t.a, 4],
        [t.b, 2],
      ] as const)
        for (const genre of track.genres) genres.set(genre, (genres.get(genre) ?? 0) + plays)
      expect(new Map(week.top_genres.map((row) => [row.genre, row.plays]))).toEqual(genres)
      expect(week.top_genres.map((row) => row.plays)).toEqual(
        [...week.top_genres.map((row) => row.plays)].sort((x, y) => y - x),
      )
      // Discoveries: a was first heard this week; b was heard 100 days ago.
      expect(week.discoveries_count).toBe(1)
      expect(week.discoveries.map((row) => [row.artist.id, row.plays])).toEqual([[t.a.artist_id, 4]])
    }),
  )

  it.effect("period bounds: rolling 7, 30 and 365 days, and all time", () =>
    Effect.gen(function* () {
      const { alice, t } = yield* aliceAndBobWithPlays
      const month = yield* statsOf(alice, "month")
      expect(month.plays).toBe(8) // + c, + f (7 days 5 minutes ago)
      expect(month.discoveries.map((row) => row.artist.id)).toEqual([t.a.artist_id, t.f.artist_id, t.c.artist_id])
      const year = yield* statsOf(alice, "year")
      // c and f tie on one play each: the longer listened time first, then the id.
      const tied = [t.c, t.f].sort((x, y) => y.duration_ms - x.duration_ms || (x.id < y.id ? -1 : 1))
      expect(ids(year.top_tracks, (row) => row.track.id)).toEqual([
        [t.d.id, 5],
        [t.a.id, 4],
        [t.b.id, 3],
        ...tied.map((track) => [track.id, 1]),
      ])
      expect(year.discoveries_count).toBe(5) // a, f, c, b (100 days), d (200 days)
      const all = yield* statsOf(alice, "all")
      expect(all.from).toBeNull()
      expect(all.plays).toBe(15)
      expect(all.discoveries_count).toBe(6)
      const week = yield* statsOf(alice)
      expect(week.period).toBe("week")
      const from = new Date(week.from!.epochMillis).getTime()
      const to = new Date(week.to.epochMillis).getTime()
      expect(to - from).toBe(7 * DAY)
    }),
  )

  it.effect("the listening clock counts unskipped plays per weekday and hour in the asked time zone", () =>
    Effect.gen(function* () {
      const { alice, weekUnskipped } = yield* aliceAndBobWithPlays
      const utc = yield* statsOf(alice, "week")
      expect(utc.clock).toEqual(clockOf(weekUnskipped, "UTC"))
      // A zone 5 h 45 min ahead moves plays across hours (and days), not by whole hours only.
      const kathmandu = yield* statsOf(alice, "week", "Asia/Kathmandu")
      expect(kathmandu.time_zone).toBe("Asia/Kathmandu")
      expect(kathmandu.clock).toEqual(clockOf(weekUnskipped, "Asia/Kathmandu"))
      expect(kathmandu.clock.flat().reduce((sum, n) => sum + n, 0)).toBe(6)
    }),
  )

  it.effect("another user's history is their own: Bob sees only his plays", () =>
    Effect.gen(function* () {
      const { bob, t } = yield* aliceAndBobWithPlays
      const stats: ListeningStats = yield* statsOf(bob, "week")
      expect(ids(stats.top_tracks, (row) => row.track.id)).toEqual([[t.c.id, 10]])
      expect(stats.discoveries.map((row) => row.artist.id)).toEqual([t.c.artist_id])
    }),
  )

  it.effect("a bad period or time zone answers 400 with the error envelope; no session answers 401", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const period = yield* raw("GET", "/api/me/listening-stats?period=decade", { token: alice.token })
      expect(period.status).toBe(400)
      expect((period.json as { error: { code: string } }).error.code).toBe("invalid_request")
      const zone = yield* raw("GET", "/api/me/listening-stats?tz=Mars%2FOlympus", { token: alice.token })
      expect(zone.status).toBe(400)
      expect((zone.json as { error: { code: string } }).error.code).toBe("invalid_timezone")
      const anonymous = yield* raw("GET", "/api/me/listening-stats")
      expect(anonymous.status).toBe(401)
    }),
  )
})
