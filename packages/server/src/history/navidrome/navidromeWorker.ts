/**
 * The Navidrome import's worker thread: opens the uploaded `navidrome.db` read-only (better-sqlite3 is synchronous,
 * so it never runs on the HTTP event loop), checks it is a Navidrome database, reads users, annotations (stars,
 * play counts, ratings), playlists and the media files they name, and matches files to library tracks by path
 * (relative to the library folder), then MusicBrainz recording id. Albums and artists are matched here too. What
 * path and MBID do not find, the import's matcher tries afterwards (ImportProgress.match).
 */
import { parentPort } from "node:worker_threads"
import { artistKeyOf, commonFolderOf, libraryRelativePath, parseNavidromeTime, searchWordsOf } from "@tonearm/core"
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
        `SELECT id, path, title, album, artist, album_id, duration${mbidColumn === null ? "" : `, ${mbidColumn} AS mbid`}${has("media_file", "created_at") ? ", created_at" : ""}
         FROM media_file`,
      )
      .all() as Row[]
    const libraryPaths = has("library", "path")
      ? (db.prepare("SELECT path FROM library").all() as Row[]).map((row) => text(row.path)).filter((p) => p !== "")
      : []
    const common = commonFolderOf(mediaRows.map((row) => text(row.path)))

    const trackByPath = new Map<string, number>()
    const trackByLoosePath = new Map<string, number>()
    const trackByMbid = new Map<string, number>()
    catalog.tracks.ids.forEach((_, index) => {
      const p = catalog.tracks.paths[index]!
      trackByPath.set(p, index)
      trackByLoosePath.set(p.normalize("NFC").toLowerCase(), index)
      const mbid = catalog.tracks.mbids[index]
      if (mbid !== null && mbid !== undefined && !trackByMbid.has(mbid.toLowerCase()))
        trackByMbid.set(mbid.toLowerCase(), index)
    })

    const referenced = new Set<string>()
    for (const annotation of annotations) if (annotation.itemType === "media_file") referenced.add(annotation.itemId)
    for (const playlist of playlists) for (const entry of playlist.entries) referenced.add(entry)
    const annotatedAlbums = new Set(annotations.filter((a) => a.itemType === "album").map((a) => a.itemId))

    const files: Array<NdFile> = []
    const albumVotes = new Map<string, Map<string, number>>()
    for (const row of mediaRows) {
      const relative = libraryRelativePath(text(row.path), libraryPaths, common)
      let index = trackByPath.get(relative) ?? trackByLoosePath.get(relative.normalize("NFC").toLowerCase())
      let how: NdFile["how"] = index === undefined ? null : "path"
      const mbid = orNull(row.mbid)?.toLowerCase() ?? null
      if (index === undefined && mbid !== null) {
        index = trackByMbid.get(mbid)
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
