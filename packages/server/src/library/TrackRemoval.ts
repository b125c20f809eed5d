import { promises as fs } from "node:fs"
import * as path from "node:path"
import type { TrackId } from "@tonearm/core"
import { Effect, Option } from "effect"
import { ChangeLog, changesOf } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { BrowseRepository } from "./BrowseRepository.js"
import { CatalogRepository } from "./CatalogRepository.js"
import { LibraryRoots } from "./LibraryRoots.js"
import { tidyCatalog } from "./scan/tidy.js"

/** Why a track's file may not be deleted. */
export type FileRefusal = "outside_library" | "not_a_file"

/**
 * Where a library-relative path really is, checked the way a delete must be: the real path of the root and
 * of the file's folder (symlinks resolved), the file itself not a symlink (unlinking one would leave its
 * target), and every step inside the root. `..` and symlinked folders that lead out are refused. A file
 * already gone answers None: there is nothing to delete.
 */
export const deletablePath = (root: string, relative: string) =>
  Effect.promise(async (): Promise<Option.Option<string> | FileRefusal> => {
    if (path.isAbsolute(relative) || relative.split(/[\\/]/).includes("..")) return "outside_library"
    const realRoot = await fs.realpath(root)
    const candidate = path.resolve(realRoot, ...relative.split("/"))
    const inside = (p: string) => p.startsWith(realRoot + path.sep)
    if (!inside(candidate)) return "outside_library"
    let realFolder: string
    try {
      realFolder = await fs.realpath(path.dirname(candidate))
    } catch {
      return Option.none()
    }
    const real = path.join(realFolder, path.basename(candidate))
    if (!inside(real)) return "outside_library"
    try {
      const stat = await fs.lstat(real)
      if (!stat.isFile()) return "not_a_file"
      return Option.some(real)
    } catch {
      return Option.none()
    }
  })

/**
 * Removing tracks from the library for good (moderation): the file from disk, then the rows, with their
 * change-log entries and the albums and artists left empty, like a purge of missing tracks.
 */
export class TrackRemoval extends Effect.Service<TrackRemoval>()("@tonearm/server/TrackRemoval", {
  effect: Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const browse = yield* BrowseRepository
    const changes = yield* ChangeLog
    const roots = yield* LibraryRoots

    /**
     * Deletes a present track's file, never outside the library root whatever its stored path. Answers
     * "deleted", "already_gone", a refusal, or "no_track".
     */
    const deleteFile = Effect.fn("TrackRemoval.deleteFile")(function* (id: TrackId) {
      const row = yield* browse.trackFile(id)
      if (Option.isNone(row)) return "no_track" as const
      const { root, relative } = yield* roots.locate(row.value.path)
      if (root === undefined) return "already_gone" as const
      const target = yield* deletablePath(root, relative).pipe(
        Effect.catchAllDefect(() => Effect.succeed("outside_library" as const)),
      )
      if (typeof target === "string") return target
      if (Option.isNone(target)) return "already_gone" as const
      yield* Effect.tryPromise(() => fs.unlink(target.value)).pipe(
        Effect.catchAll((error) =>
          (error.error as { code?: string } | undefined)?.code === "ENOENT"
            ? Effect.void
            : Effect.logError(`could not delete ${target.value}`, error).pipe(Effect.zipRight(Effect.die(error))),
        ),
      )
      return "deleted" as const
    })

    /** Deletes the tracks' rows and tidies albums and artists; run it inside the caller's transaction. */
    const removeTracks = Effect.fn("TrackRemoval.removeTracks")(function* (ids: ReadonlyArray<TrackId>) {
      const removed = yield* catalog.deleteTracks(ids)
      if (removed.length > 0) {
        const now = yield* currentDate
        yield* changes.record(changesOf("track", "delete", removed), now)
        yield* tidyCatalog(now).pipe(
          Effect.provideService(CatalogRepository, catalog),
          Effect.provideService(ChangeLog, changes),
        )
      }
      return removed.length
    })

    return { deleteFile, removeTracks } as const
  }),
  dependencies: [CatalogRepository.Default, BrowseRepository.Default, LibraryRoots.Default],
}) {}
