import {
  clampLimit,
  decodeSyncCursor,
  encodeSyncCursor,
  type Internal,
  InvalidRequest,
  SYNC_PAGE_DEFAULT,
  SYNC_PAGE_MAX,
  SyncDeletes,
  type SyncEntity,
  SyncPage,
  SyncUpserts,
  type UserId,
} from "@tonearm/core"
import { Effect } from "effect"
import { ChangeLog } from "../changes/index.js"
import { LibraryAccess, LibraryService } from "../library/index.js"
import { LikesService } from "../listening/index.js"
import { PlaylistsService } from "../playlists/index.js"

const emptyIds = (): Record<SyncEntity, Array<string>> => ({
  artist: [],
  album: [],
  track: [],
  playlist: [],
  like_track: [],
  like_album: [],
  like_artist: [],
  playlist_track: [],
})

/**
 * Library sync (spec "Library sync"): each page lists the entities changed after the cursor, each once and
 * in its current state; an entity that changes again moves past the cursor and comes again later. Upserts of
 * entities that no longer exist are answered as deletes.
 */
export class SyncService extends Effect.Service<SyncService>()("@tonearm/server/SyncService", {
  effect: Effect.gen(function* () {
    const changes = yield* ChangeLog
    const library = yield* LibraryService
    const likes = yield* LikesService
    const playlists = yield* PlaylistsService
    const access = yield* LibraryAccess

    const likeMaps = (user: UserId, entity: "track" | "album" | "artist", ids: ReadonlyArray<string>) =>
      Effect.map(likes.likedAmong(user, entity, ids), (rows) =>
        rows.map((row) => ({ [`${entity}_id`]: row.entity_id, liked_at: row.liked_at.toISOString() })),
      )

    const page = Effect.fn("SyncService.page")(function* (
      user: UserId,
      query: { readonly cursor?: string | undefined; readonly limit?: number | undefined },
    ) {
      const after = decodeSyncCursor(query.cursor)
      if (after === undefined) return yield* new InvalidRequest({ message: "cursor: not a cursor this server issued" })
      const limit = clampLimit(query.limit, SYNC_PAGE_DEFAULT, SYNC_PAGE_MAX)
      const rows = yield* changes.changesAfter(user, after, limit + 1)
      const batch = rows.slice(0, limit)
      const upsertIds = emptyIds()
      const deleteIds = emptyIds()
      for (const row of batch) (row.operation === "upsert" ? upsertIds : deleteIds)[row.entity].push(row.entity_id)

      const [artists, albums, tracks, playlistRows, likedTracks, likedAlbums, likedArtists, storedEntries] =
        yield* Effect.all(
          [
            library.artistsByIds(upsertIds.artist),
            library.albumsByIds(upsertIds.album),
            library.tracksByIds(upsertIds.track),
            playlists.rowsByIds(user, upsertIds.playlist),
            likeMaps(user, "track", upsertIds.like_track),
            likeMaps(user, "album", upsertIds.like_album),
            likeMaps(user, "artist", upsertIds.like_artist),
            playlists.entriesByIds(user, upsertIds.playlist_track),
          ],
          { concurrency: 4 },
        )
      // A listener limited to some libraries (issue 27): their likes and playlist entries of other libraries' tracks
      // are kept but not synced (a client that had them drops them), read through the same catalogue as the tracks.
      const limited = (yield* access.current).ids !== undefined
      const idsOf = <A extends { readonly id: string }>(read: Effect.Effect<ReadonlyArray<A>, Internal>) =>
        Effect.map(read, (rows): ReadonlySet<string> | undefined => new Set(rows.map((row) => row.id)))
      const heardIds = (kind: "track" | "album" | "artist", ids: ReadonlyArray<string>) =>
        !limited || ids.length === 0
          ? Effect.succeed<ReadonlySet<string> | undefined>(undefined)
          : kind === "track"
            ? idsOf(library.tracksByIds(ids))
            : kind === "album"
              ? idsOf(library.albumsByIds(ids))
              : idsOf(library.artistsByIds(ids))
      const [heardTracks, heardAlbums, heardArtists] = yield* Effect.all([
        heardIds("track", [
          ...likedTracks.map((row) => row.track_id!),
          ...storedEntries.map((entry) => entry.track_id),
        ]),
        heardIds(
          "album",
          likedAlbums.map((row) => row.album_id!),
        ),
        heardIds(
          "artist",
          likedArtists.map((row) => row.artist_id!),
        ),
      ])
      // The same array type back (the page's mutable like lists, the repository's readonly entries).
      const keep = <R extends ReadonlyArray<unknown>>(
        rows: R,
        heard: ReadonlySet<string> | undefined,
        id: (row: R[number]) => string,
      ): R => (heard === undefined ? rows : (rows.filter((row) => heard.has(id(row))) as unknown as R))
      const likeTrack = keep(likedTracks, heardTracks, (row) => row.track_id!)
      const likeAlbum = keep(likedAlbums, heardAlbums, (row) => row.album_id!)
      const likeArtist = keep(likedArtists, heardArtists, (row) => row.artist_id!)
      const entries = keep(storedEntries, heardTracks, (entry) => entry.track_id)

      // Logged as upserted but gone by now: the client should drop them.
      const vanished = (entity: SyncEntity, present: ReadonlyArray<string>) => {
        const found = new Set(present)
        deleteIds[entity].push(...upsertIds[entity].filter((id) => !found.has(id)))
      }
      vanished(
        "artist",
        artists.map((row) => row.id),
      )
      vanished(
        "album",
        albums.map((row) => row.id),
      )
      vanished(
        "track",
        tracks.map((row) => row.id),
      )
      vanished(
        "playlist",
        playlistRows.map((row) => row.id),
      )
      vanished(
        "like_track",
        likeTrack.map((row) => row.track_id!),
      )
      vanished(
        "like_album",
        likeAlbum.map((row) => row.album_id!),
      )
      vanished(
        "like_artist",
        likeArtist.map((row) => row.artist_id!),
      )
      vanished(
        "playlist_track",
        entries.map((row) => row.entry_id),
      )

      const last = batch.at(-1)?.seq ?? after
      return new SyncPage({
        cursor: encodeSyncCursor(last),
        has_more: rows.length > limit,
        upserts: new SyncUpserts({
          artists,
          albums,
          tracks,
          playlists: playlistRows,
          like_track: likeTrack as Array<Record<string, string>>,
          like_album: likeAlbum as Array<Record<string, string>>,
          like_artist: likeArtist as Array<Record<string, string>>,
          playlist_track: entries.map((entry) => ({
            entry_id: entry.entry_id,
            playlist_id: entry.playlist_id,
            track_id: entry.track_id,
            position: String(entry.position),
            ...(entry.pick_kind === null ? {} : { pick_kind: entry.pick_kind }),
          })),
        }),
        deletes: new SyncDeletes({
          artists: deleteIds.artist,
          albums: deleteIds.album,
          tracks: deleteIds.track,
          playlists: deleteIds.playlist,
          like_track: deleteIds.like_track,
          like_album: deleteIds.like_album,
          like_artist: deleteIds.like_artist,
          playlist_track: deleteIds.playlist_track,
        }),
      })
    })

    return { page } as const
  }),
}) {}
