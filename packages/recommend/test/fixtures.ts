import { AlbumId, ArtistId, SHIPPED_TUNING, TrackId, type Tuning } from "@tonearm/core"
import { Clock, Effect, Random } from "effect"
import {
  buildCatalog,
  buildTasteProfile,
  type Catalog,
  type LibraryTrack,
  type Likes,
  type PlayRow,
  type SurfaceInput,
  summarizeHistory,
} from "../src/index.js"

/** Deterministic ids: kind 1 tracks, 2 artists, 3 albums. */
const uuid = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`
export const trackId = (n: number) => TrackId.make(uuid(1, n))
export const artistId = (n: number) => ArtistId.make(uuid(2, n))
export const albumId = (n: number) => AlbumId.make(uuid(3, n))

export const DAY = 86_400_000
export const HOUR = 3_600_000
/** Wednesday 2025-06-11 12:00 UTC. */
export const NOW = Date.UTC(2025, 5, 11, 12)

export interface TrackSpec {
  readonly artist: number
  readonly album?: number
  readonly genre?: string | null
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly weight: number }>
  readonly year?: number | null
  readonly addedDaysAgo?: number
  readonly durationMs?: number
  readonly mbid?: string
}

export const libraryTrack = (n: number, spec: TrackSpec): LibraryTrack => ({
  id: trackId(n),
  artist_id: artistId(spec.artist),
  album_id: albumId(spec.album ?? spec.artist * 100),
  duration_ms: spec.durationMs ?? 200_000,
  genre: spec.genre === undefined ? "Rock" : spec.genre,
  tags: spec.tags ?? [],
  year: spec.year === undefined ? 2001 : spec.year,
  added_at_ms: NOW - (spec.addedDaysAgo ?? 400) * DAY,
  artist_mbid: spec.mbid ?? `mbid-${spec.artist}`,
})

/** A catalog of `artists` artists × `perArtist` tracks; genres cycle through `genres` by artist. */
export const gridCatalog = (
  artists: number,
  perArtist: number,
  genres: ReadonlyArray<string> = ["Rock", "Jazz", "Techno", "Folk"],
  extra: (artist: number, n: number) => Partial<TrackSpec> = () => ({}),
): Catalog => {
  const rows: Array<LibraryTrack> = []
  for (let a = 0; a < artists; a++)
    for (let k = 0; k < perArtist; k++) {
      const n = a * perArtist + k
      rows.push(
        libraryTrack(n, {
          artist: a,
          album: a * 10 + Math.floor(k / 5),
          genre: genres[a % genres.length]!,
          tags: [{ name: `tag-${genres[a % genres.length]}`, weight: 1 }],
          ...extra(a, n),
        }),
      )
    }
  return buildCatalog(rows)
}

export const play = (
  n: number,
  daysAgo: number,
  options: { skipped?: boolean; completion?: number | null; device?: string | null; at?: number } = {},
): PlayRow => ({
  track_id: trackId(n),
  started_at_ms: options.at ?? NOW - daysAgo * DAY,
  skipped: options.skipped ?? false,
  completion: options.completion === undefined ? (options.skipped ? 0.05 : 1) : options.completion,
  device_class: options.device ?? null,
  source: null,
  pick_kind: null,
})

/** A surface input built the way the daily rebuild builds it (profile at NOW). */
export const surfaceInput = (
  catalog: Catalog,
  plays: ReadonlyArray<PlayRow>,
  options: {
    likes?: Likes
    tuning?: Tuning
    timeZone?: string
    extra?: Partial<Omit<SurfaceInput, "candidates" | "history" | "tuning">>
  } = {},
): SurfaceInput => {
  const tuning = options.tuning ?? SHIPPED_TUNING
  const history = summarizeHistory({ catalog, plays, likes: options.likes, timeZone: options.timeZone ?? "UTC" })
  const profile = buildTasteProfile({ catalog, history, taste: tuning.taste, now: NOW })
  return { profile, candidates: catalog, history, tuning, ...options.extra }
}

/** A Clock stopped at `now`: the engine only reads the time, it never sleeps. */
export const stoppedAt = (now: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => now,
  currentTimeMillis: Effect.succeed(now),
  unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
  sleep: () => Effect.void,
})

/**
 * Runs an engine effect at a fixed Clock time with a seeded Random. A Clock of its own rather than TestClock: in a
 * test worker that ran a server test file before (modules are kept from file to file), TestClock.setTime found
 * the live Clock in the fiber's services.
 */
export const atTime = <A, E>(effect: Effect.Effect<A, E>, seed: string | number = "seed", now: number = NOW) =>
  effect.pipe(Effect.withRandom(Random.make(seed)), Effect.withClock(stoppedAt(now)))
