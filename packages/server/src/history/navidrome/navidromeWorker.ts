/**
 * The Navidrome import's worker thread: opens the uploaded `navidrome.db` read-only (better-sqlite3 is synchronous,
 * so it never runs on the HTTP event loop), checks it is a Navidrome database, reads users, annotations (stars,
 * play counts, ratings), playlists and the media files they name, and matches files to library tracks by path (in
 * the library whose folder holds the file, else relative to a library folder), then MusicBrainz recording id.
 * Albums and artists are matched here too. What path and MBID do not find, the import's matcher tries afterwards
 * (ImportProgress.match).
 */
import { parentPort } from "node:worker_threads"
import {
  artistKeyOf,
  commonFolderOf,
  isAbsoluteNavidromePath,
  libraryHolding,
  libraryRelativePath,
  parseNavidromeTime,
  preferredLibrary,
  searchWordsOf,
} from "@tonearm/core"
import { splitStoredPath } from "../../library/libraryPaths.js"
import { BadFile, openNavidromeDb as open } from "./navidromeDb.js"
import type {
  NavidromeCatalog,
  NavidromeSnapshot,
  NavidromeWorkerIn,
  NavidromeWorkerOut,
  NdAnnotation,
  NdFile,
} from "./navidromeProtocol.js"

type Row = Record<string, unknown>

const text = (value: unknown): string => (typeof value === "string" ? value : value == null ? "" : String(value))
const orNull = (value: unknown): string | null => {
  const t = text(value).trim()
  return t === "" ? null : t
}
const folded = (value: string) => searchWordsOf(value).join(" ")

const read = (path: string, catalog: NavidromeCatalog): NavidromeSnapshot => {
  const { db, columns } = open(path)
  try {
    const has = (table: string, column: string) => columns.get(table)?.has(column) === true
    const users = (db.prepare("SELECT id, user_name FROM user").all() as Row[]).map((row) => ({
      id: text(row.id),
      name: text(row.user_name),
    }))
    const annotationRows = db
      .prepare(
        `SELECT user_id, item_id, item_type, play_count, play_date, rating, starred, starred_at${has("annotation", "rated_at") ? ", rated_at" : ""}
         FROM annotation WHERE item_type IN ('media_file', 'album', 'artist')
           AND (play_count > 0 OR rating > 0 OR starred)`,
      )
      .all() as Row[]
    const annotations: Array<NdAnnotation> = annotationRows.map((row) => ({
      userId: text(row.user_id),
      itemType: text(row.item_type) as NdAnnotation["itemType"],
      itemId: text(row.item_id),
      playCount: Number(row.play_count ?? 0) || 0,
      playedMs: parseNavidromeTime(orNull(row.play_date)),
      rating: Number(row.rating ?? 0) || 0,
      ratedMs: parseNavidromeTime(orNull(row.rated_at)),
      starred: Boolean(row.starred),
      starredMs: parseNavidromeTime(orNull(row.starred_at)),
    }))

    // Playlists: owner by id (Navidrome since 2021) or by user name (before).
    const byName = new Map(users.map((user) => [user.name.toLowerCase(), user.id]))
    const ownerColumn = has("playlist", "owner_id") ? "owner_id" : "owner"
    const playlistRows = db
      .prepare(`SELECT id, name, ${ownerColumn} AS owner${has("playlist", "rules") ? ", rules" : ""} FROM playlist`)
      .all() as Row[]
    const entriesOf = has("playlist_tracks", "media_file_id")
      ? db.prepare("SELECT media_file_id FROM playlist_tracks WHERE playlist_id = ? ORDER BY id")
      : undefined
    const playlists = playlistRows.map((row) => {
      const rules = orNull(row.rules)
      const owner = text(row.owner)
      return {
        id: text(row.id),
        name: text(row.name),
        ownerId: ownerColumn === "owner_id" ? owner : (byName.get(owner.toLowerCase()) ?? owner),
        smart: rules !== null && rules !== "null",
        entries:
          entriesOf === undefined
            ? []
            : (entriesOf.all(text(row.id)) as Row[]).map((entry) => text(entry.media_file_id)),
      }
    })

    // Every media file, matched by path, then MBID: album matches vote with all of them.
    const mbidColumn = has("media_file", "mbz_recording_id")
      ? "mbz_recording_id"
      : has("media_file", "mbz_track_id")
        ? "mbz_track_id"
        : null
    const mediaRows = db
      .prepare(
        `SELECT id, path, title, album, artist, album_id, duration${mbidColumn === null ? "" : `, ${mbidColumn} AS mbid`}${has("media_file", "created_at") ? ", created_at" : ""}${has("media_file", "library_id") ? ", library_id" : ""}
         FROM media_file`,
      )
      .all() as Row[]
    // Navidrome's library folders by id (media files name theirs since its libraries, 0.58; before, one).
    const ndFolders = new Map<string, string>()
    if (has("library", "path"))
      for (const row of db.prepare("SELECT id, path FROM library").all() as Row[])
        if (text(row.path) !== "") ndFolders.set(text(row.id), text(row.path))
    const libraryPaths = [...ndFolders.values()]
    const ndFolderOf = (row: Row): string | undefined =>
      ndFolders.get(text(row.library_id)) ?? (ndFolders.size === 1 ? libraryPaths[0] : undefined)
    const common = commonFolderOf(mediaRows.map((row) => text(row.path)))

    // Our tracks by library and path within it; and by that path alone, for files Navidrome saw mounted elsewhere.
    const fold = (p: string) => p.normalize("NFC").toLowerCase()
    const inLibrary = new Map<string, number>()
    const inLibraryLoose = new Map<string, number>()
    const anywhere = new Map<string, Array<number>>()
    const anywhereLoose = new Map<string, Array<number>>()
    const libraryOf: Array<number> = []
    const add = (map: Map<string, Array<number>>, key: string, index: number) => {
      const list = map.get(key)
      if (list === undefined) map.set(key, [index])
      else list.push(index)
    }
    const trackByMbid = new Map<string, Array<number>>()
    catalog.tracks.ids.forEach((_, index) => {
      const { libraryId, relative } = splitStoredPath(catalog.tracks.paths[index]!)
      libraryOf.push(libraryId)
      inLibrary.set(`${libraryId}/${relative}`, index)
      inLibraryLoose.set(`${libraryId}/${fold(relative)}`, index)
      add(anywhere, relative, index)
      add(anywhereLoose, fold(relative), index)
      const mbid = catalog.tracks.mbids[index]
      if (mbid !== null && mbid !== undefined) add(trackByMbid, mbid.toLowerCase(), index)
    })

    // Each media file's track by path: in the library whose folder holds the file, else the one library holding
    // its relative path. Copies in several libraries are settled below, by where the rest of its Navidrome library
    // was found (`libraryVotes`, per Navidrome folder).
    const libraryVotes = new Map<string, Map<number, number>>()
    const certain = (ndFolder: string | undefined, index: number) => {
      const tally = libraryVotes.get(ndFolder ?? "") ?? new Map<number, number>()
      tally.set(libraryOf[index]!, (tally.get(libraryOf[index]!) ?? 0) + 1)
      libraryVotes.set(ndFolder ?? "", tally)
      return index
    }
    const byPath = mediaRows.map((row): number | ReadonlyArray<number> | undefined => {
      const stored = text(row.path)
      const ndFolder = ndFolderOf(row)
      const location = isAbsoluteNavidromePath(stored)
        ? stored
        : ndFolder === undefined
          ? undefined
          : `${ndFolder.replace(/[\\/]+$/, "")}/${stored}`
      const held = location === undefined ? undefined : libraryHolding(location, catalog.libraries)
      const found =
        held === undefined
          ? undefined
          : (inLibrary.get(`${held.libraryId}/${held.relative}`) ??
            inLibraryLoose.get(`${held.libraryId}/${fold(held.relative)}`))
      if (found !== undefined) return certain(ndFolder, found)
      const relative = libraryRelativePath(stored, ndFolder === undefined ? libraryPaths : [ndFolder], common)
      const copies = anywhere.get(relative) ?? anywhereLoose.get(fold(relative)) ?? []
      return copies.length === 0 ? undefined : copies.length === 1 ? certain(ndFolder, copies[0]!) : copies
    })
    /** One of several copies: the one in the library the rest of the file's Navidrome library was found in. */
    const oneOf = (row: Row, copies: ReadonlyArray<number>): number | undefined => {
      if (copies.length <= 1) return copies[0]
      const ndFolder = ndFolderOf(row)
      const library = preferredLibrary(
        copies.map((copy) => libraryOf[copy]!),
        libraryVotes.get(ndFolder ?? ""),
        ndFolder,
        catalog.libraries,
      )
      return copies.find((copy) => libraryOf[copy] === library)
    }
    const pathMatch = (row: Row, position: number): number | undefined => {
      const found = byPath[position]
      return found === undefined || typeof found === "number" ? found : oneOf(row, found)
    }

    const referenced = new Set<string>()
    for (const annotation of annotations) if (annotation.itemType === "media_file") referenced.add(annotation.itemId)
    for (const playlist of playlists) for (const entry of playlist.entries) referenced.add(entry)
    const annotatedAlbums = new Set(annotations.filter((a) => a.itemType === "album").map((a) => a.itemId))

    const files: Array<NdFile> = []
    const albumVotes = new Map<string, Map<string, number>>()
    for (const [position, row] of mediaRows.entries()) {
      let index = pathMatch(row, position)
      let how: NdFile["how"] = index === undefined ? null : "path"
      const mbid = orNull(row.mbid)?.toLowerCase() ?? null
      if (index === undefined && mbid !== null) {
        index = oneOf(row, trackByMbid.get(mbid) ?? [])
        if (index !== undefined) how = "mbid"
      }
      const ndAlbum = text(row.album_id)
      if (index !== undefined && annotatedAlbums.has(ndAlbum)) {
        const votes = albumVotes.get(ndAlbum) ?? new Map<string, number>()
        const ours = catalog.tracks.albumIds[index]!
        votes.set(ours, (votes.get(ours) ?? 0) + 1)
        albumVotes.set(ndAlbum, votes)
      }
      const id = text(row.id)
      if (!referenced.has(id)) continue
      files.push({
        id,
        title: text(row.title),
        artist: text(row.artist),
        album: text(row.album),
        mbid,
        durationMs: Math.round((Number(row.duration) || 0) * 1000),
        addedMs: parseNavidromeTime(orNull(row.created_at)),
        trackId: index === undefined ? null : catalog.tracks.ids[index]!,
        trackDurationMs: index === undefined ? null : catalog.tracks.durations[index]!,
        how,
      })
    }

    // Albums: the library album most of its files landed on; else its MBID; else title and album artist, folded.
    const albumByMbid = new Map<string, string>()
    const albumByKey = new Map<string, string>()
    for (const album of catalog.albums) {
      if (album.mbid !== null) albumByMbid.set(album.mbid.toLowerCase(), album.id)
      albumByKey.set(`${folded(album.title)}|${artistKeyOf(album.artist)}`, album.id)
    }
    const albumColumns = `id, name${has("album", "album_artist") ? ", album_artist" : ""}${has("album", "mbz_album_id") ? ", mbz_album_id" : ""}`
    const albumRow = db.prepare(`SELECT ${albumColumns} FROM album WHERE id = ?`)
    const albums = [...annotatedAlbums].map((id) => {
      const row = albumRow.get(id) as Row | undefined
      const votes = [...(albumVotes.get(id) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1])
      const mbid = orNull(row?.mbz_album_id)?.toLowerCase()
      const albumId =
        votes[0]?.[0] ??
        (mbid === undefined ? undefined : albumByMbid.get(mbid)) ??
        albumByKey.get(`${folded(text(row?.name))}|${artistKeyOf(text(row?.album_artist))}`) ??
        null
      return { id, name: text(row?.name), albumId }
    })

    // Artists: MBID, else the folded name.
    const artistByMbid = new Map<string, string>()
    const artistByKey = new Map<string, string>()
    for (const artist of catalog.artists) {
      if (artist.mbid !== null) artistByMbid.set(artist.mbid.toLowerCase(), artist.id)
      if (!artistByKey.has(artistKeyOf(artist.name))) artistByKey.set(artistKeyOf(artist.name), artist.id)
    }
    const artistRow = db.prepare(
      `SELECT id, name${has("artist", "mbz_artist_id") ? ", mbz_artist_id" : ""} FROM artist WHERE id = ?`,
    )
    const artists = [...new Set(annotations.filter((a) => a.itemType === "artist").map((a) => a.itemId))].map((id) => {
      const row = artistRow.get(id) as Row | undefined
      const mbid = orNull(row?.mbz_artist_id)?.toLowerCase()
      const artistId =
        (mbid === undefined ? undefined : artistByMbid.get(mbid)) ??
        artistByKey.get(artistKeyOf(text(row?.name))) ??
        null
      return { id, name: text(row?.name), artistId }
    })

    return { users, files, albums, artists, annotations, playlists, mediaFileCount: mediaRows.length }
  } finally {
    db.close()
  }
}

const answer = (message: NavidromeWorkerOut) => parentPort!.postMessage(message)

parentPort!.on("message", (job: NavidromeWorkerIn) => {
  try {
    answer({ type: "read", snapshot: read(job.path, job.catalog) })
  } catch (error) {
    const bad = error instanceof BadFile || (error as { code?: string }).code?.startsWith("SQLITE_") === true
    answer({ type: "error", message: (error as Error).message, badFile: bad })
  }
})
