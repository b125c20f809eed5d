import { SqlClient } from "@effect/sql"
import {
  InvalidRequest,
  importPlaySource,
  type Listen,
  type Rating,
  ratingChange,
  spreadPlays,
  TrackId,
  type UnmatchedReason,
  type UserId,
} from "@tonearm/core"
import { Effect, Layer, Option } from "effect"
import { AccountsService } from "../../accounts/index.js"
import { currentDate } from "../../clock.js"
import { orInternal } from "../../db/sqlErrors.js"
import { LibraryRoots } from "../../library/index.js"
import { LikesService, PlaysService, RatingsService } from "../../listening/index.js"
import { PlaylistsService } from "../../playlists/index.js"
import { RebuildService } from "../../recommendations/index.js"
import {
  type ImportCounters,
  ImportFailed,
  type ImportJob,
  type ImportProgress,
  type ImportSourcePlugin,
} from "../ImportSources.js"
import { checkNavidromeDb, readNavidromeDb } from "./NavidromeReader.js"
import { NavidromeRepository } from "./NavidromeRepository.js"
import type { NavidromeSnapshot, NdAnnotation, NdFile } from "./navidromeProtocol.js"

const SOURCE = importPlaySource("navidrome_db")

/** Resumes after the Navidrome users already imported (each user is one transaction). */
interface Cursor {
  readonly users: ReadonlyArray<string>
}
const cursorOf = (raw: unknown): Cursor =>
  typeof raw === "object" && raw !== null && Array.isArray((raw as Cursor).users) ? (raw as Cursor) : { users: [] }

/** An entry that matched nothing in the library, listed on the import (ImportProgress.unmatched). */
interface Miss {
  readonly artist: string
  readonly title: string
  readonly album: string | null
  readonly listenedAtMs: number
  readonly reason: UnmatchedReason
}

/** What one user's part added, for the summary. */
interface Tally {
  likes: number
  ratings: number
  plays: number
  playlists: number
  missingEntries: number
}

/**
 * The admin's import of a Navidrome database (`navidrome_db`, issue 26): users matched to Tonearm accounts by
 * username; per user, stars become likes (tracks, albums, artists) with their time, ratings are kept, play counts
 * become plays spread back from the last play (core `spreadPlays`), plain playlists are recreated (same name and
 * order, entries not in the library left out); smart playlists are not. Files are matched by path, MBID, then the
 * import's matcher. Everything goes through the owning services; each user is one transaction with the job's
 * progress, so a restart resumes with the next user and a re-import adds nothing.
 */
export const makeNavidromeSource = Effect.gen(function* () {
  const accounts = yield* AccountsService
  const likes = yield* LikesService
  const ratings = yield* RatingsService
  const plays = yield* PlaysService
  const playlists = yield* PlaylistsService
  const rebuilds = yield* RebuildService
  const repository = yield* NavidromeRepository
  const roots = yield* LibraryRoots
  const sql = yield* SqlClient.SqlClient

  /** Files path and MBID did not place, tried with the matcher (in the import's worker thread). */
  const matchLeftovers = (snapshot: NavidromeSnapshot, progress: ImportProgress) =>
    Effect.gen(function* () {
      const leftovers = snapshot.files.filter((file) => file.trackId === null && file.title !== "")
      const placed = new Map<string, { trackId: string; durationMs: number }>()
      for (const file of snapshot.files)
        if (file.trackId !== null) placed.set(file.id, { trackId: file.trackId, durationMs: file.trackDurationMs ?? 0 })
      if (leftovers.length === 0) return placed
      const listens: Array<Listen> = leftovers.map((file) => ({
        artist: file.artist,
        title: file.title,
        album: file.album === "" ? null : file.album,
        recording_mbid: file.mbid,
        started_at_ms: 0,
        ms_played: null,
      }))
      const items = yield* progress.match(0, listens)
      for (const item of items)
        if (item.status === "matched")
          placed.set(leftovers[item.position]!.id, { trackId: item.track_id, durationMs: item.track_duration_ms })
      return placed
    })

  const run = (job: ImportJob, progress: ImportProgress) =>
    Effect.gen(function* () {
      if (job.filePath === null)
        return yield* new ImportFailed({ message: "the uploaded file is gone", badFile: false })
      const catalog = yield* repository.catalog.pipe(
        Effect.mapError(() => new ImportFailed({ message: "could not read the library", badFile: false })),
      )
      const folders = yield* roots.folders
      const libraries = [...folders].map(([id, folder]) => ({ id, folder }))
      const snapshot = yield* readNavidromeDb(job.filePath, { ...catalog, libraries })
      const placed = yield* matchLeftovers(snapshot, progress)
      const files = new Map<string, NdFile>(snapshot.files.map((file) => [file.id, file]))
      const albums = new Map(snapshot.albums.map((album) => [album.id, album]))
      const artists = new Map(snapshot.artists.map((artist) => [artist.id, artist]))

      let counters: ImportCounters = job.counters
      const done = new Set(cursorOf(job.cursor).users)
      const imported: Array<string> = []
      const unknown: Array<string> = []
      const tally: Tally = { likes: 0, ratings: 0, plays: 0, playlists: 0, missingEntries: 0 }
      let smart = 0
      const rebuildFor: Array<UserId> = []

      for (const ndUser of [...snapshot.users].sort((a, b) => a.name.localeCompare(b.name))) {
        const account = yield* accounts.userByName(ndUser.name).pipe(Effect.orElseSucceed(() => Option.none()))
        const owned = snapshot.playlists.filter((playlist) => playlist.ownerId === ndUser.id)
        smart += owned.filter((playlist) => playlist.smart).length
        if (Option.isNone(account)) {
          if (snapshot.annotations.some((a) => a.userId === ndUser.id) || owned.length > 0) unknown.push(ndUser.name)
          continue
        }
        imported.push(account.value.username)
        if (done.has(ndUser.id)) continue
        const userId = account.value.id
        const mine = snapshot.annotations.filter((annotation) => annotation.userId === ndUser.id)
        const now = yield* currentDate
        const misses: Array<Miss> = []
        const likeRecords: Array<{ entity: "track" | "album" | "artist"; entityId: string; likedAt: Date }> = []
        const ratingRecords: Array<{
          entity: "track" | "album" | "artist"
          entityId: string
          rating: Rating
          ratedAt: Date
        }> = []
        const listens: Array<{ trackId: string; startedAtMs: number; msPlayed: number; trackDurationMs: number }> = []
        let matched = 0

        const target = (annotation: NdAnnotation) => {
          switch (annotation.itemType) {
            case "media_file": {
              const hit = placed.get(annotation.itemId)
              return hit === undefined ? undefined : { entity: "track" as const, id: hit.trackId, hit }
            }
            case "album": {
              const id = albums.get(annotation.itemId)?.albumId
              return id === null || id === undefined ? undefined : { entity: "album" as const, id, hit: undefined }
            }
            case "artist": {
              const id = artists.get(annotation.itemId)?.artistId
              return id === null || id === undefined ? undefined : { entity: "artist" as const, id, hit: undefined }
            }
          }
        }

        for (const annotation of mine) {
          const found = target(annotation)
          if (found === undefined) {
            const file = files.get(annotation.itemId)
            misses.push({
              artist:
                annotation.itemType === "artist" ? (artists.get(annotation.itemId)?.name ?? "") : (file?.artist ?? ""),
              title: file?.title ?? "",
              album:
                annotation.itemType === "album" ? (albums.get(annotation.itemId)?.name ?? null) : (file?.album ?? null),
              listenedAtMs: annotation.playedMs ?? annotation.starredMs ?? annotation.ratedMs ?? 0,
              reason: "no_match",
            })
            continue
          }
          matched += 1
          if (annotation.starred)
            likeRecords.push({
              entity: found.entity,
              entityId: found.id,
              likedAt: new Date(annotation.starredMs ?? now.getTime()),
            })
          const rating = ratingChange(annotation.rating)
          if (typeof rating === "object")
            ratingRecords.push({
              entity: found.entity,
              entityId: found.id,
              rating: rating.set,
              ratedAt: new Date(annotation.ratedMs ?? now.getTime()),
            })
          if (found.hit !== undefined && annotation.playCount > 0) {
            const file = files.get(annotation.itemId)
            for (const startedAtMs of spreadPlays({
              playCount: annotation.playCount,
              lastPlayedMs: annotation.playedMs,
              addedMs: file?.addedMs ?? null,
              trackDurationMs: found.hit.durationMs,
            }))
              listens.push({
                trackId: found.hit.trackId,
                startedAtMs,
                msPlayed: found.hit.durationMs,
                trackDurationMs: found.hit.durationMs,
              })
          }
        }

        const plainPlaylists = owned.filter((playlist) => !playlist.smart)
        const result = yield* Effect.gen(function* () {
          const likesAdded = yield* likes.importLikes(userId, likeRecords)
          const ratingsAdded = yield* ratings.importRatings(userId, ratingRecords)
          const playsAdded = listens.length === 0 ? 0 : yield* plays.importPlays(userId, SOURCE, listens)
          let playlistsAdded = 0
          let entries = 0
          let entriesMatched = 0
          for (const playlist of plainPlaylists) {
            const trackIds: Array<TrackId> = []
            for (const entry of playlist.entries) {
              entries += 1
              const hit = placed.get(entry)
              if (hit !== undefined) {
                entriesMatched += 1
                trackIds.push(TrackId.make(hit.trackId))
                continue
              }
              const file = files.get(entry)
              misses.push({
                artist: file?.artist ?? "",
                title: file?.title ?? "",
                album: file?.album ?? null,
                listenedAtMs: 0,
                reason: "no_match",
              })
            }
            // Imported once per owner: a re-import leaves the playlist (and any edits to it) as it is.
            if ((yield* repository.importedPlaylist(userId, playlist.id)) !== undefined) continue
            const name = playlist.name.trim() === "" ? "Imported playlist" : playlist.name.trim()
            const created = yield* playlists.create(userId, { name, track_ids: trackIds })
            yield* repository.linkPlaylist(userId, playlist.id, created.id, now)
            playlistsAdded += 1
          }
          const next: ImportCounters = {
            total: counters.total + mine.length + entries,
            matched: counters.matched + matched + entriesMatched,
            unmatched: counters.unmatched + misses.length,
            duplicates: counters.duplicates + listens.length - playsAdded,
            added: counters.added + playsAdded,
          }
          yield* progress.unmatched(misses.map((miss, index) => ({ ...miss, position: counters.total + index })))
          yield* progress.advance(next, { users: [...done, ndUser.id] } satisfies Cursor)
          return { next, likesAdded, ratingsAdded, playsAdded, playlistsAdded, missing: entries - entriesMatched }
        }).pipe(
          sql.withTransaction,
          orInternal("NavidromeSource.importUser"),
          // A storage failure, or a track that vanished mid-way: this user's part is rolled back; a retry resumes here.
          Effect.mapError(
            (error) =>
              new ImportFailed({
                message: `could not import ${ndUser.name}'s data (${error.message})`,
                badFile: false,
              }),
          ),
        )
        counters = result.next
        done.add(ndUser.id)
        tally.likes += result.likesAdded
        tally.ratings += result.ratingsAdded
        tally.plays += result.playsAdded
        tally.playlists += result.playlistsAdded
        tally.missingEntries += result.missing
        if (result.playsAdded > 0) rebuildFor.push(userId)
      }

      yield* progress.note(summaryOf(imported, unknown, tally, smart, snapshot.mediaFileCount))
      // New plays change the taste: each listener's mixes are rebuilt once now, not at 03:00.
      for (const user of rebuildFor)
        yield* rebuilds
          .rebuild(user)
          .pipe(Effect.catchAllCause((cause) => Effect.logWarning("rebuild after a Navidrome import failed", cause)))
    })

  return {
    kind: "custom",
    source: "navidrome_db",
    /** A file that is not a readable Navidrome database is the request's fault: 400, never a failed job later. */
    checkFile: (path: string) =>
      checkNavidromeDb(path).pipe(
        Effect.catchAll((failure) =>
          failure.badFile
            ? Effect.fail(new InvalidRequest({ message: `file: ${failure.message}` }))
            : Effect.die(failure),
        ),
      ),
    run,
  } satisfies ImportSourcePlugin
}).pipe(Effect.provide(Layer.merge(NavidromeRepository.Default, LibraryRoots.Default)))

const plural = (n: number, word: string) =>
  `${n} ${n === 1 ? word : word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`}`

/** The import's message: who was imported, who has no account here, and what was added. */
const summaryOf = (
  imported: ReadonlyArray<string>,
  unknown: ReadonlyArray<string>,
  tally: Tally,
  smart: number,
  files: number,
) =>
  [
    imported.length === 0 ? "No Navidrome user has an account here." : `Imported for ${imported.join(", ")}:`,
    imported.length === 0
      ? ""
      : `${plural(tally.likes, "like")}, ${plural(tally.ratings, "rating")}, ${plural(tally.plays, "play")}, ${plural(tally.playlists, "playlist")} added${tally.missingEntries > 0 ? ` (${plural(tally.missingEntries, "playlist entry")} not in the library left out)` : ""}.`,
    unknown.length === 0 ? "" : `Not imported, no account with that username: ${unknown.join(", ")}.`,
    smart === 0 ? "" : `${plural(smart, "smart playlist")} not imported.`,
    `${plural(files, "file")} in the database.`,
  ]
    .filter((part) => part !== "")
    .join(" ")
