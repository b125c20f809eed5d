import type { TrackMove, VanishedTrack } from "../CatalogRepository.js"

/** What a newly found file is compared on to find the track it may be a moved copy of. */
export type NewFile = Omit<VanishedTrack, "id" | "missing">

/** Same size and the same tags (title, album, artist, track number, duration): the same recording, moved. */
export const moveKey = (file: Omit<NewFile, "path">): string =>
  JSON.stringify([
    file.sizeBytes,
    file.title.toLowerCase(),
    file.album.toLowerCase(),
    file.artist.toLowerCase(),
    file.trackNumber,
    file.durationMs,
  ])

/**
 * Which new files are moved copies of vanished tracks, decided purely: a new file takes the id of a vanished
 * track with the same size and tags, each track at most once (`claimed` holds the ids earlier batches took).
 * Among several candidates, a track whose path vanished in this scan goes before one missing since an
 * earlier scan, then the lower path; new files claim in path order, so the answer never depends on
 * batching order within one call.
 */
export const matchMoves = (
  files: ReadonlyArray<NewFile>,
  vanished: ReadonlyArray<VanishedTrack>,
  claimed: ReadonlySet<string> = new Set(),
): ReadonlyArray<TrackMove> => {
  const byKey = new Map<string, Array<VanishedTrack>>()
  for (const track of vanished) {
    if (claimed.has(track.id)) continue
    const key = moveKey(track)
    const list = byKey.get(key) ?? []
    list.push(track)
    byKey.set(key, list)
  }
  for (const list of byKey.values()) {
    list.sort((a, b) => (a.missing !== b.missing ? (a.missing ? 1 : -1) : a.path < b.path ? -1 : 1))
  }
  const moves: Array<TrackMove> = []
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const track = byKey.get(moveKey(file))?.shift()
    if (track !== undefined) moves.push({ id: track.id, path: file.path })
  }
  return moves
}

/**
 * The vanished tracks of one scan and the ids batches have taken so far. `paths` are the vanished tracks'
 * own paths: a file found at one of them is that track returning in place, not a move.
 */
export class MoveCandidates {
  private readonly claimedIds = new Set<string>()
  /** Albums this scan wrote or re-keyed: an album's id goes to one key per scan (CatalogRepository.keepAlbumIds). */
  readonly keptAlbums = new Set<string>()
  /** Artists this scan renamed (CatalogRepository.keepArtistIds). */
  readonly keptArtists = new Set<string>()
  readonly paths: ReadonlySet<string>

  constructor(readonly vanished: ReadonlyArray<VanishedTrack>) {
    this.paths = new Set(vanished.map((track) => track.path))
  }

  /** The moves among these new files; nothing is claimed until `claim` (after the batch commits). */
  match(files: ReadonlyArray<NewFile>): ReadonlyArray<TrackMove> {
    return this.vanished.length === 0 ? [] : matchMoves(files, this.vanished, this.claimedIds)
  }

  claim(moves: ReadonlyArray<TrackMove>): void {
    for (const move of moves) this.claimedIds.add(move.id)
  }
}

/** A scan with nothing vanished: no file can be a move. */
export const noMoves = (): MoveCandidates => new MoveCandidates([])
