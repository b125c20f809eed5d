import type { PlayStat } from "@tonearm/core"
import { buildCatalog, type Catalog, type LibraryTrack, type PlayRow } from "../src/index.js"
import { albumId, artistId, DAY, HOUR, NOW, trackId } from "./fixtures.js"

/**
 * A generated 3,000-track library and a scripted listener, the shape of the issue-28 report: about 12
 * tracks per album, most artists 2–5 albums, a few prolific ones (the listener's favourite has 16 albums),
 * ten genres with enriched tags. Deterministic (a seeded mulberry32), no files: the pure engine runs on it.
 */
export const GENERATED_TRACKS = 3000
const GENRES = ["Rock", "Jazz", "Techno", "Folk", "Hip-Hop", "Classical", "Pop", "Metal", "Soul", "Ambient"] as const

export const mulberry32 = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

export interface GeneratedLibrary {
  readonly catalog: Catalog
  /** track numbers per artist number */
  readonly artistTracks: ReadonlyArray<ReadonlyArray<number>>
  /** album number per track number */
  readonly albumOf: ReadonlyArray<number>
}

export const generatedLibrary = (seed = 5, tracks = GENERATED_TRACKS): GeneratedLibrary => {
  const random = mulberry32(seed)
  const rows: Array<LibraryTrack> = []
  const artistTracks: Array<Array<number>> = []
  const albumOf: Array<number> = []
  let album = 0
  for (let artist = 0; rows.length < tracks; artist++) {
    const albums = artist === 0 ? 16 : artist === 1 ? 8 : 2 + Math.floor(random() * 4)
    const genre = GENRES[artist % GENRES.length]!
    const second = GENRES[(artist * 3 + 1) % GENRES.length]!
    const own: Array<number> = []
    for (let a = 0; a < albums && rows.length < tracks; a++, album++) {
      const year = 1960 + Math.floor(random() * 65)
      for (let k = 0; k < 12 && rows.length < tracks; k++) {
        const n = rows.length
        own.push(n)
        albumOf.push(album)
        rows.push({
          id: trackId(n),
          artist_id: artistId(artist),
          album_id: albumId(album),
          duration_ms: 180_000 + Math.floor(random() * 120_000),
          genre,
          tags: [
            { name: genre.toLowerCase(), weight: 1 },
            { name: second.toLowerCase(), weight: 0.4 },
          ],
          year,
          added_at_ms: NOW - Math.floor(30 + random() * 700) * DAY,
          artist_mbid: `mbid-${artist}`,
        })
      }
    }
    artistTracks.push(own)
  }
  return { catalog: buildCatalog(rows), artistTracks, albumOf }
}

/**
 * The listener: 200–400 days ago they played artists 10–29 (now dormant: Rediscover's cold tier); in the
 * last 60 days 70 % of their plays go to artist 0 (its first six albums), the rest to artists 1–4; two
 * tracks are on repeat in the last two weeks. About 1,900 plays, 5 % skipped.
 */
export const scriptedListener = (library: GeneratedLibrary, seed = 7): Array<PlayRow> => {
  const random = mulberry32(seed)
  const plays: Array<PlayRow> = []
  const pickOf = (list: ReadonlyArray<number>) => list[Math.floor(random() * list.length)]!
  const add = (n: number, at: number) => {
    const skipped = random() < 0.05
    plays.push({
      track_id: trackId(n),
      started_at_ms: at,
      skipped,
      completion: skipped ? 0.05 : 1,
      device_class: null,
      source: null,
      pick_kind: null,
    })
  }
  for (let i = 0; i < 600; i++) {
    const artist = 10 + (i % 20)
    add(pickOf(library.artistTracks[artist]!.slice(0, 12)), NOW - (200 + random() * 200) * DAY)
  }
  const favourite = library.artistTracks[0]!.slice(0, 72)
  for (let i = 0; i < 1300; i++) {
    const at = NOW - random() * 60 * DAY - HOUR
    if (random() < 0.7) add(pickOf(favourite), at)
    else add(pickOf(library.artistTracks[1 + Math.floor(random() * 4)]!.slice(0, 24)), at)
  }
  const onRepeat = [library.artistTracks[2]![30] ?? 0, library.artistTracks[3]![30] ?? 1]
  for (let d = 0; d < 10; d++) for (const n of onRepeat) add(n, NOW - d * DAY - 2 * HOUR)
  return plays.sort((a, b) => a.started_at_ms - b.started_at_ms)
}

/** Home's album play stats from the plays (what PlayRepository.playStats sums). */
export const albumStats = (library: GeneratedLibrary, plays: ReadonlyArray<PlayRow>): Array<PlayStat> => {
  const byAlbum = new Map<string, { plays: number; last: number; lastUnskipped: number | null }>()
  for (const play of plays) {
    const n = library.catalog.trackIndex.get(play.track_id)!
    const id = albumId(library.albumOf[n]!)
    const stat = byAlbum.get(id) ?? { plays: 0, last: 0, lastUnskipped: null }
    if (!play.skipped) {
      stat.plays++
      stat.lastUnskipped = Math.max(stat.lastUnskipped ?? 0, play.started_at_ms)
    }
    stat.last = Math.max(stat.last, play.started_at_ms)
    byAlbum.set(id, stat)
  }
  return [...byAlbum].map(([id, stat]) => ({
    id,
    plays: stat.plays,
    lastPlayedMs: stat.last,
    lastUnskippedMs: stat.lastUnskipped,
  }))
}
