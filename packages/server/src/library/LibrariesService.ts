import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import {
  type AddLibraryRequest,
  AdminLibraryList,
  Conflict,
  InvalidRequest,
  Library,
  LibraryList,
  LibraryRef,
  NotFound,
  type RenameLibraryRequest,
  type SessionUser,
  UserLibraries,
} from "@tonearm/core"
import { Effect, Layer, Option } from "effect"
import { ChangeLog, changesOf } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { libraryDirsOf, TonearmConfig } from "../config/TonearmConfig.js"
import { orInternal } from "../db/sqlErrors.js"
import { CatalogRepository } from "./CatalogRepository.js"
import { LibrariesRepository, type LibraryRecord } from "./LibrariesRepository.js"
import { LibraryAccess } from "./LibraryAccess.js"
import { ScanService } from "./ScanService.js"
import { tidyCatalog } from "./scan/tidy.js"

/** A library is named after its folder (contract "Multiple libraries"). */
export const libraryNameOf = (dir: string): string => path.basename(path.resolve(dir)) || dir

const toLibrary = (row: LibraryRecord) =>
  new Library({
    id: row.id,
    name: row.name,
    path: row.path,
    track_count: row.track_count,
    scanned_at: row.scanned_at,
  })

const libraryNotFound = (id: number) => new NotFound({ message: `no library ${id}`, resource: "library" })

/** The libraries (admin routes, the boot's reconciliation) and the listener's own list. */
export class LibrariesService extends Effect.Service<LibrariesService>()("@tonearm/server/LibrariesService", {
  effect: Effect.gen(function* () {
    const libraries = yield* LibrariesRepository
    const access = yield* LibraryAccess
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const scans = yield* ScanService
    const config = yield* TonearmConfig
    const sql = yield* SqlClient.SqlClient

    /** The caller's libraries (`GET /api/library/libraries`): admins every present one. */
    const listFor = (user: SessionUser) =>
      Effect.gen(function* () {
        const scope = yield* access.forUser(user)
        const rows = (yield* libraries.all).filter(
          (row) => row.removed_at === null && (scope.ids === undefined || scope.ids.includes(row.id)),
        )
        return new LibraryList({ items: rows.map((row) => new LibraryRef({ id: row.id, name: row.name })) })
      })

    const list = Effect.map(
      libraries.all,
      (rows) => new AdminLibraryList({ items: rows.filter((row) => row.removed_at === null).map(toLibrary) }),
    )

    const present = (id: number) =>
      Effect.flatMap(libraries.byId(id), (row) =>
        Option.isSome(row) && row.value.removed_at === null
          ? Effect.succeed(row.value)
          : Effect.fail(libraryNotFound(id)),
      )

    /** Tracks and their albums and artists come back or go missing, with their change-log rows, in one transaction. */
    const recordTracks = (ids: ReadonlyArray<string>, kind: "upsert" | "delete", now: Date) =>
      Effect.gen(function* () {
        yield* changes.record(changesOf("track", kind, ids), now)
        if (ids.length > 0) {
          yield* tidyCatalog(now).pipe(
            Effect.provideService(CatalogRepository, catalog),
            Effect.provideService(ChangeLog, changes),
          )
        }
      })

    /** Adds a library, or brings a removed one at the same path back with its tracks (their ids unchanged). */
    const add = (request: AddLibraryRequest) =>
      Effect.gen(function* () {
        if (!path.isAbsolute(request.path)) {
          return yield* new InvalidRequest({ message: "path: a library's folder is an absolute path on the server" })
        }
        const folder = path.resolve(request.path)
        const now = yield* currentDate
        const known = yield* libraries.byPath(folder)
        let id: number
        if (Option.isSome(known)) {
          if (known.value.removed_at === null) {
            return yield* new Conflict({
              message: `${folder} is already library ${known.value.id} (${known.value.name})`,
              reason: "library_path_taken",
            })
          }
          id = known.value.id
          yield* Effect.gen(function* () {
            const removedAt = yield* libraries.revive(id, request.name)
            if (Option.isSome(removedAt)) {
              const restored = yield* catalog.restoreLibrary(id, removedAt.value)
              yield* recordTracks(restored, "upsert", now)
            }
          }).pipe(sql.withTransaction, orInternal("LibrariesService.add"))
        } else {
          id = yield* libraries.insert(request.name, folder)
        }
        yield* access.forget
        // A library added is indexed at once (incremental: one added again only reads what changed meanwhile).
        yield* scans.start(false, id).pipe(Effect.ignore)
        return toLibrary(Option.getOrThrow(yield* libraries.byId(id)))
      })

    const rename = (id: number, request: RenameLibraryRequest) =>
      Effect.gen(function* () {
        if (!(yield* libraries.rename(id, request.name))) return yield* libraryNotFound(id)
        return toLibrary(yield* present(id))
      })

    /** Removes a library: its tracks become missing (nothing pointing at them is lost); the row stays for a re-add. */
    const remove = (id: number) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const removed = yield* Effect.gen(function* () {
          if (!(yield* libraries.markRemoved(id, now))) return false
          const missing = yield* catalog.markLibraryMissing(id, now)
          yield* recordTracks(missing, "delete", now)
          return true
        }).pipe(sql.withTransaction, orInternal("LibrariesService.remove"))
        if (!removed) return yield* libraryNotFound(id)
        yield* access.forget
      })

    /** Scans a library now (incremental); `started` is false when a scan of it is running already. */
    const scan = (id: number) =>
      Effect.gen(function* () {
        yield* present(id)
        return yield* scans.start(false, id)
      })

    const userLibraries = (userId: string) =>
      Effect.gen(function* () {
        if (!(yield* libraries.userExists(userId))) {
          return yield* new NotFound({ message: `no user ${userId}`, resource: "user" })
        }
        const active = yield* libraries.activeIds
        const given = yield* libraries.userLibraryIds(userId)
        return new UserLibraries({ library_ids: given.filter((libraryId) => active.includes(libraryId)) })
      })

    const setUserLibraries = (userId: string, request: UserLibraries) =>
      Effect.gen(function* () {
        if (!(yield* libraries.userExists(userId))) {
          return yield* new NotFound({ message: `no user ${userId}`, resource: "user" })
        }
        const active = yield* libraries.activeIds
        const unknown = request.library_ids.filter((libraryId) => !active.includes(libraryId))
        if (unknown.length > 0) {
          return yield* new InvalidRequest({ message: `library_ids: no library ${unknown.join(", ")}` })
        }
        yield* libraries.setUserLibraries(userId, [...new Set(request.library_ids)])
        yield* access.forget
        return yield* userLibraries(userId)
      })

    /**
     * At boot: each configured folder is a library. The library an index made before libraries existed takes the
     * first folder; a folder not known yet is added (heard by admins until given to users); a removed one stays
     * removed (an admin's choice) and is only logged.
     */
    const reconcile = Effect.gen(function* () {
      const dirs = libraryDirsOf(config)
      // One folder given, one library known elsewhere: the music moved (a new disk), as a single-library server
      // always allowed. The library follows its folder, so its tracks keep their ids (their paths are relative).
      const placed = (yield* libraries.all).filter((row) => row.removed_at === null && row.path !== null)
      if (dirs.length === 1 && placed.length === 1 && placed[0]!.path !== dirs[0]) {
        if (Option.isNone(yield* libraries.byPath(dirs[0]!))) {
          yield* libraries.move(placed[0]!.id, dirs[0]!)
          yield* Effect.logInfo(
            `library ${placed[0]!.id} (${placed[0]!.name}) moved from ${placed[0]!.path} to ${dirs[0]}`,
          )
        }
      }
      for (const dir of dirs) {
        const known = yield* libraries.byPath(dir)
        if (Option.isSome(known)) {
          if (known.value.removed_at !== null) {
            yield* Effect.logWarning(`library ${dir} was removed by an admin: not indexed (add it again to restore it)`)
          }
          continue
        }
        const adopted = yield* libraries.adoptUnplaced(dir, libraryNameOf(dir))
        if (Option.isNone(adopted)) yield* libraries.insert(libraryNameOf(dir), dir)
      }
      yield* access.forget
    })

    return { listFor, list, add, rename, remove, scan, userLibraries, setUserLibraries, reconcile } as const
  }),
  dependencies: [LibrariesRepository.Default, LibraryAccess.Default, CatalogRepository.Default],
}) {}

/** The configured folders become libraries before anything reads them. */
export const LibrariesBootLive = Layer.effectDiscard(
  Effect.flatMap(LibrariesService, (service) => service.reconcile).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("could not reconcile the configured libraries", cause)),
  ),
)
