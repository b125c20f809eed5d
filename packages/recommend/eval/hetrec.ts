import { readFileSync } from "node:fs"
import { join } from "node:path"

/** The HetRec 2011 Last.fm-2K files (tab-separated, header line first). */
export interface HetrecData {
  readonly artistNames: ReadonlyMap<number, string>
  /** user → artist → play count */
  readonly plays: ReadonlyMap<number, ReadonlyMap<number, number>>
  /** (user, artist, tag) assignments */
  readonly taggings: ReadonlyArray<readonly [user: number, artist: number, tag: number]>
  readonly tagNames: ReadonlyMap<number, string>
}

const rows = (dir: string, file: string): Array<Array<string>> =>
  readFileSync(join(dir, file), "utf8")
    .split(/\r?\n/)
    .slice(1)
    .filter((line) => line.trim() !== "")
    .map((line) => line.split("\t"))

export const loadHetrec = (dir: string): HetrecData => {
  const artistNames = new Map(rows(dir, "artists.dat").map(([id, name]) => [Number(id), name ?? ""] as const))
  const tagNames = new Map(rows(dir, "tags.dat").map(([id, value]) => [Number(id), value ?? ""] as const))
  const plays = new Map<number, Map<number, number>>()
  for (const [user, artist, weight] of rows(dir, "user_artists.dat")) {
    const u = Number(user)
    const own = plays.get(u) ?? new Map<number, number>()
    plays.set(u, own)
    own.set(Number(artist), Number(weight))
  }
  const taggings = rows(dir, "user_taggedartists.dat").map(
    ([user, artist, tag]) => [Number(user), Number(artist), Number(tag)] as const,
  )
  return { artistNames, plays, taggings, tagNames }
}
