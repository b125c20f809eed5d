/**
 * A golden snapshot of the whole daily rebuild (and a few radios) over seeded synthetic users, so a
 * performance change can prove that no surface, pick, pick kind, order or score moved.
 *
 * `rebuild-snapshot.json` was written from the engine BEFORE the rebuild's performance work, by
 *
 *   pnpm exec tsx packages/recommend/test/write-rebuild-snapshot.ts
 *
 * and `rebuild-snapshot.test.ts` asserts the current engine reproduces it exactly. Only rewrite it for a
 * deliberate change of behaviour.
 */
import { type ArtistId, SHIPPED_TUNING, type TrackId } from "@tonearm/core"
import { Effect, Random } from "effect"
import {
  buildCatalog,
  type Catalog,
  type LibraryTrack,
  type Likes,
  MOODS,
  type Pick,
  type PlayRow,
  type RadioSeed,
  radio,
  rebuildUser,
  type SimilarArtist,
  type SurfaceInput,
  summarizeHistory,
} from "../src/index.js"
import { albumId, artistId, DAY, gridCatalog, HOUR, libraryTrack, NOW, play, stoppedAt, trackId } from "./fixtures.js"

/** A small local generator for the fixture data (not the engine's Random). */
const generator = (seed: number) => {
  let state = seed | 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const run = <A, E>(effect: Effect.Effect<A, E>, seed: string | number, now = NOW): A =>
  Effect.runSync(effect.pipe(Effect.withClock(stoppedAt(now)), Effect.withRandom(Random.make(seed))))

const GENRES = ["Rock", "Jazz", "Techno", "Folk", "Hip-Hop", "Ambient", "Soul", "Metal", "Pop", "Blues"]
const TAGS = [...Array.from({ length: 40 }, (_, i) => `tag ${i}`), ...MOODS, "sad", "party", "relaxing"]

/** A varied library: genres, enriched tags with moods, undated tracks, recent additions, compilations. */
const richLibrary = (rand: () => number, artists: number) => {
  const rows: Array<LibraryTrack> = []
  let n = 0
  for (let a = 0; a < artists; a++) {
    const base = Math.floor(rand() * (GENRES.length - 1))
    const genre = rand() < 0.5 ? GENRES[base]! : `${GENRES[base]}; ${GENRES[base + 1]}`
    const tags = Array.from({ length: Math.floor(rand() * 6) }, (_, i) => ({
      name: TAGS[Math.floor(rand() * TAGS.length)]!,
      weight: Math.round((1 - i * 0.15) * 100) / 100,
    }))
    const tracks = 3 + Math.floor(rand() * 25)
    for (let k = 0; k < tracks; k++) {
      const recent = rand()
      rows.push({
        ...libraryTrack(n, {
          artist: a,
          album: a * 10 + Math.floor(k / 8),
          genre: rand() < 0.05 ? null : genre,
          tags,
          year: rand() < 0.1 ? null : 1960 + Math.floor(rand() * 65),
          addedDaysAgo: recent < 0.05 ? Math.floor(rand() * 14) : recent < 0.1 ? 20 : recent < 0.2 ? 60 : 400,
          mbid: `mbid-${a}`,
        }),
        // a few compilations credited to "Various Artists"
        ...(a % 17 === 0 && k >= 8 ? { album_artist_id: artistId(9_999) } : {}),
      })
      n++
    }
  }
  return rows
}

interface Case {
  readonly name: string
  readonly catalog: Catalog
  readonly plays: ReadonlyArray<PlayRow>
  readonly likes?: Likes
  readonly timeZone: string
  readonly seed: string | number
  readonly now?: number
  readonly signals?: Omit<SurfaceInput, "profile" | "candidates" | "history" | "tuning">
  readonly radios?: ReadonlyArray<RadioSeed>
}

const richCase = (name: string, dataSeed: number, seed: string | number, playCount: number): Case => {
  const rand = generator(dataSeed)
  const rows = richLibrary(rand, 150)
  const catalog = buildCatalog(rows)
  const byArtist = new Map<number, Array<number>>()
  rows.forEach((row, t) => {
    const a = catalog.artistIndex.get(row.artist_id)!
    byArtist.set(a, [...(byArtist.get(a) ?? []), t])
  })
  const favourites = Array.from({ length: 30 }, () => Math.floor(rand() * 150))
  const hated = favourites[29]!
  const plays: Array<PlayRow> = []
  for (let i = 0; i < playCount; i++) {
    const artist = favourites[Math.floor(favourites.length * rand() ** 2)]!
    const tracks = byArtist.get(artist)!
    const t = tracks[Math.floor(rand() * tracks.length)]!
    const skipped = artist === hated || rand() < 0.15
    plays.push(
      play(t, 0, {
        at: NOW - Math.floor(rand() * 400 * DAY) - (rand() < 0.1 ? 0 : Math.floor(rand() * 2 * HOUR)),
        skipped,
        completion: skipped ? rand() * 0.1 : rand() < 0.05 ? null : 0.5 + rand() * 0.5,
        device: ["mobile", "mobile", "desktop", null][Math.floor(rand() * 4)]!,
      }),
    )
  }
  // a burst of recent repeats (On repeat) and a play "in the future" relative to the clock
  for (let i = 0; i < 40; i++) plays.push(play(byArtist.get(favourites[i % 4]!)![i % 3]!, (i % 20) + 0.5))
  plays.push(play(byArtist.get(favourites[0]!)![0]!, -1))
  plays.sort((a, b) => a.started_at_ms - b.started_at_ms)
  const id = (t: number) => catalog.tracks[t]!.id
  const excluded = new Set<TrackId>(Array.from({ length: 40 }, () => id(Math.floor(rand() * catalog.size))))
  excluded.add(trackId(999_999)) // not in the library
  const popularity = new Map<TrackId, number>()
  const crossUser = new Map<TrackId, number>()
  for (let i = 0; i < catalog.size / 2; i++) {
    const t = Math.floor(rand() * catalog.size)
    popularity.set(id(t), rand() * 1.2 - 0.1) // clamped to [0, 1]
    crossUser.set(id(t), Math.floor(rand() * 30) - 2) // ≤ 0 never drawn
  }
  const similarArtists = new Map<ArtistId, ReadonlyArray<SimilarArtist>>(
    favourites.slice(0, 10).map((a) => [
      catalog.artistIds[a]!,
      Array.from({ length: 8 }, () => ({
        artist_id: catalog.artistIds[Math.floor(rand() * 150)]!,
        score: rand() * 1.1,
      })).concat([{ artist_id: artistId(5_000), score: 0.9 }]),
    ]),
  )
  return {
    name,
    catalog,
    plays,
    likes: {
      tracks: [id(3), id(50), id(51), id(700)],
      albums: [albumId(favourites[2]! * 10), albumId(12_345)],
      artists: [catalog.artistIds[favourites[5]!]!, catalog.artistIds[77]!],
    },
    timeZone: "America/New_York",
    seed,
    signals: {
      excluded,
      popularity,
      crossUser,
      similarArtists,
      snoozedArtistMbids: new Set([`mbid-${favourites[3]}`, "mbid-404"]),
      jitterSalt: `user-${dataSeed}`,
    },
    radios: [
      { kind: "artist", id: catalog.artistIds[favourites[0]!]! },
      { kind: "track", id: id(byArtist.get(favourites[1]!)![0]!) },
      { kind: "album", id: catalog.albumIds[5]! },
      { kind: "genre", value: GENRES[2]! },
    ],
  }
}

const cases = (): ReadonlyArray<Case> => {
  const grid = gridCatalog(40, 10)
  const gridPlays = Array.from({ length: 80 }, (_, i) =>
    play((i * 37) % 400, 1 + (i % 300), { skipped: i % 9 === 0, device: i % 2 ? "mobile" : "web" }),
  )
  return [
    richCase("rich user, 3,000 plays", 11, "alpha", 3_000),
    richCase("rich user, 600 plays, another seed", 12, 7, 600),
    {
      ...richCase("rich user at 21:00 context, Tokyo", 13, "gamma", 1_500),
      timeZone: "Asia/Tokyo",
      now: NOW + 9 * HOUR,
    },
    {
      // For You's small pool: the fallback fill from the whole library
      name: "small taste pool (For You fallback)",
      catalog: grid,
      plays: gridPlays,
      timeZone: "Europe/Paris",
      seed: 3,
      signals: { crossUser: new Map(Array.from({ length: 30 }, (_, i) => [grid.tracks[i * 13]!.id, 1 + i])) },
      radios: [{ kind: "artist", id: artistId(1) }],
    },
    {
      name: "cold start: no plays, one liked artist",
      catalog: grid,
      plays: [],
      likes: { artists: [artistId(2)] },
      timeZone: "UTC",
      seed: "cold",
    },
    { name: "nothing at all", catalog: grid, plays: [], timeZone: "UTC", seed: 0 },
  ]
}

const entries = (map: ReadonlyMap<string, number>) => [...map]
const withoutReason = ({ reason: _reason, ...pick }: Pick) => pick

/** Every case's rebuild (and radios) as plain JSON. */
export const rebuildSnapshot = (): unknown =>
  JSON.parse(
    JSON.stringify(
      cases().map((c) => {
        const now = c.now ?? NOW
        const built = run(
          rebuildUser({
            catalog: c.catalog,
            plays: c.plays,
            likes: c.likes,
            timeZone: c.timeZone,
            tuning: SHIPPED_TUNING,
            signals: c.signals,
          }),
          c.seed,
          now,
        )
        const input: SurfaceInput = {
          ...c.signals,
          profile: built.profile,
          candidates: c.catalog,
          history: summarizeHistory({ catalog: c.catalog, plays: c.plays, likes: c.likes, timeZone: c.timeZone }),
          tuning: SHIPPED_TUNING,
        }
        return {
          name: c.name,
          profile: {
            artists: entries(built.profile.artists),
            tags: entries(built.profile.tags),
            eras: entries(built.profile.eras),
            moods: entries(built.profile.moods),
          },
          // reasons are checked by reasons.test.ts; the golden file pins the picks themselves
          surfaces: built.snapshots.surfaces.map((surface) => ({
            ...surface,
            picks: surface.picks.map(withoutReason),
          })),
          youMightLike: built.snapshots.youMightLike,
          radios: (c.radios ?? []).map((seed) => run(radio(input, seed, { size: 40 }), c.seed, now).map(withoutReason)),
        }
      }),
    ),
  )
