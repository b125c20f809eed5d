/**
 * Opening an uploaded `navidrome.db` read-only and checking it is Navidrome's: the tables and columns the import
 * reads. Only the schema pages are read (a few KiB whatever the file's size), so the upload route checks a file
 * with it directly; the import's reading runs in navidromeWorker.ts.
 */
import Database from "better-sqlite3"

/** A file that is not a Navidrome database: the upload's fault, answered as such. */
export class BadFile extends Error {}

export type Db = InstanceType<typeof Database>

const columnsOf = (db: Db, table: string): Set<string> =>
  new Set((db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((column) => column.name))

/** The tables and columns every Navidrome database since 2020 has, and the import reads. */
const REQUIRED: Readonly<Record<string, ReadonlyArray<string>>> = {
  user: ["id", "user_name"],
  media_file: ["id", "path", "title", "album", "artist", "album_id", "duration"],
  album: ["id", "name"],
  artist: ["id", "name"],
  annotation: ["user_id", "item_id", "item_type", "play_count", "play_date", "rating", "starred"],
  playlist: ["id", "name"],
}

export const openNavidromeDb = (path: string): { db: Db; columns: Map<string, Set<string>> } => {
  let db: Db
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw new BadFile(`not a readable SQLite database (${(error as Error).message})`)
  }
  try {
    const columns = new Map<string, Set<string>>()
    for (const table of [...Object.keys(REQUIRED), "playlist_tracks", "library"])
      columns.set(table, columnsOf(db, table))
    for (const [table, wanted] of Object.entries(REQUIRED)) {
      const have = columns.get(table)!
      if (have.size === 0) throw new BadFile(`not a Navidrome database: it has no ${table} table`)
      const missing = wanted.filter((column) => !have.has(column))
      if (missing.length > 0) throw new BadFile(`not a Navidrome database: ${table} has no ${missing.join(", ")}`)
    }
    if (!columns.get("playlist")!.has("owner_id") && !columns.get("playlist")!.has("owner"))
      throw new BadFile("not a Navidrome database: playlist has no owner")
    return { db, columns }
  } catch (error) {
    db.close()
    if (error instanceof BadFile) throw error
    // SQLITE_NOTADB, SQLITE_CORRUPT…: the first read of a file that is not (or no longer) a database fails here.
    throw new BadFile(`not a readable SQLite database (${(error as Error).message})`)
  }
}
