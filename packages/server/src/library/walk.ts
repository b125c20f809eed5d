import { type Dirent, promises as fs } from "node:fs"
import * as path from "node:path"
import { isAudioPath, isHiddenMetadata, pickArtistImage, pickSidecarCover } from "@tonearm/core"
import { Cause, Data, Effect, Option } from "effect"

/**
 * The library folder itself is missing or unreadable, or empty while the index holds tracks (an unmounted
 * disk): an operator's mistake, reported in one line. A scan that fails with it marks nothing missing.
 */
export class LibraryFolderUnreadable extends Data.TaggedError("LibraryFolderUnreadable")<{
  readonly message: string
}> {}

/** The missing-folder failure a scan's cause carries, when that is why it failed. */
export const libraryFolderUnreadableIn = (cause: Cause.Cause<unknown>) =>
  Cause.failureOption(cause).pipe(
    Option.filter((error): error is LibraryFolderUnreadable => error instanceof LibraryFolderUnreadable),
  )

const unreadableMessage = (root: string, cause: unknown) =>
  (cause as NodeJS.ErrnoException)?.code === "ENOENT"
    ? `the library folder ${root} does not exist: create it, or give another with --library or TONEARM_LIBRARY`
    : `cannot read the library folder ${root}: ${cause instanceof Error ? cause.message : String(cause)}`

const MOUNTED = "nothing was marked missing — is the disk mounted?"

/** Why a scan of a library folder holding no audio files stops instead of marking `indexed` tracks missing. */
export const libraryFolderEmpty = (root: string, indexed: number) =>
  new LibraryFolderUnreadable({
    message: `the library folder ${root} holds no audio files while the index holds ${indexed} tracks; ${MOUNTED}`,
  })

/** An absent or unreadable library folder while the index holds tracks: the same failure, saying what was kept. */
export const withIndexKept = (error: LibraryFolderUnreadable, indexed: number) =>
  indexed === 0
    ? error
    : new LibraryFolderUnreadable({ message: `${error.message}; the index holds ${indexed} tracks and ${MOUNTED}` })

/**
 * Checked again just before a scan marks tracks missing: the library folder is still there, readable and
 * not empty. A disk unmounted after the walk leaves an empty mount point (or none at all).
 */
export const libraryFolderStillThere = (root: string) =>
  Effect.tryPromise({
    try: () => fs.readdir(root),
    catch: (cause) => new LibraryFolderUnreadable({ message: `${unreadableMessage(root, cause)}; ${MOUNTED}` }),
  }).pipe(
    Effect.flatMap((names) =>
      names.some((name) => !isHiddenMetadata(name))
        ? Effect.void
        : Effect.fail(
            new LibraryFolderUnreadable({ message: `the library folder ${root} emptied during the scan; ${MOUNTED}` }),
          ),
    ),
  )

/** One audio file found on disk; `path` is relative to the library root with `/` separators. */
export interface FoundFile {
  readonly path: string
  readonly sizeBytes: number
  readonly mtimeMs: number
}

export interface SidecarStat {
  /** Relative path of the image. */
  readonly path: string
  readonly mtimeMs: number
}

/** One folder holding audio files. */
export interface FoundFolder {
  readonly path: string
  readonly files: Array<FoundFile>
}

export interface WalkResult {
  readonly folders: Map<string, FoundFolder>
  /** The cover image of every folder that has one, audio or not (disc folders borrow their parent's). */
  readonly sidecars: Map<string, SidecarStat>
  /** The `artist.*` image of every folder that has one, audio or not, by folder (absent: none). */
  readonly artistImages?: Map<string, SidecarStat>
  /** Files and folders skipped as hidden metadata or by the ignore list; a folder counts once (absent: 0). */
  readonly skipped?: number
}

/** Folders read at once: enough to hide each readdir's latency, few enough for the file-descriptor limit. */
const WALK_CONCURRENCY = 16

const toPosix = (relative: string) => relative.split(path.sep).join("/")

/** Hidden metadata only (`.DS_Store`, `._*`, `@eaDir`, …): what a walk skips when given no ignore list. */
const hiddenMetadataOnly = (relative: string) => isHiddenMetadata(relative.slice(relative.lastIndexOf("/") + 1))

/**
 * Every folder under the library root, read several at a time. What `ignored` says (given the path relative
 * to the root, `/` separators: core's `scanIgnoreRule`) is skipped and counted, a folder with everything in
 * it; a name that merely starts with a dot is not. Symlinked folders are skipped; a symlinked file counts only
 * when it stays inside the library.
 */
export const walkLibrary = (root: string, ignored: (relative: string) => boolean = hiddenMetadataOnly) =>
  Effect.tryPromise({
    try: async (): Promise<WalkResult> => {
      const folders = new Map<string, FoundFolder>()
      const sidecars = new Map<string, SidecarStat>()
      const artistImages = new Map<string, SidecarStat>()
      let skipped = 0
      const realRoot = await fs.realpath(root)

      const statFile = async (relative: string, symlink: boolean): Promise<FoundFile | undefined> => {
        try {
          const file = path.join(root, relative)
          const stat = await fs.stat(file)
          if (!stat.isFile()) return undefined
          if (symlink) {
            const target = await fs.realpath(file)
            if (!target.startsWith(realRoot + path.sep)) return undefined // a link out of the library is never indexed
          }
          return { path: toPosix(relative), sizeBytes: stat.size, mtimeMs: Math.floor(stat.mtimeMs) }
        } catch {
          return undefined // vanished or unreadable between readdir and stat
        }
      }

      const visit = async (relative: string, discover: (child: string) => void) => {
        let entries: Array<Dirent>
        try {
          entries = await fs.readdir(path.join(root, relative), { withFileTypes: true })
        } catch {
          return // unreadable folder: skipped, the rest of the library still scans
        }
        const names: Array<string> = []
        const audio: Array<{ relative: string; symlink: boolean }> = []
        for (const entry of entries) {
          const child = relative === "" ? entry.name : path.join(relative, entry.name)
          if (ignored(toPosix(child))) {
            skipped++
            continue
          }
          names.push(entry.name)
          if (entry.isDirectory()) discover(child)
          else if ((entry.isFile() || entry.isSymbolicLink()) && isAudioPath(entry.name)) {
            audio.push({ relative: child, symlink: entry.isSymbolicLink() })
          }
        }
        const sidecar = pickSidecarCover(names)
        const artistImage = pickArtistImage(names)
        const [files, sidecarStat, artistImageStat] = await Promise.all([
          Promise.all(audio.map((file) => statFile(file.relative, file.symlink))),
          sidecar === undefined ? undefined : statFile(path.join(relative, sidecar), true),
          artistImage === undefined ? undefined : statFile(path.join(relative, artistImage), true),
        ])
        const folder = toPosix(relative)
        if (sidecarStat !== undefined) sidecars.set(folder, { path: sidecarStat.path, mtimeMs: sidecarStat.mtimeMs })
        if (artistImageStat !== undefined)
          artistImages.set(folder, { path: artistImageStat.path, mtimeMs: artistImageStat.mtimeMs })
        const found = files.filter((file): file is FoundFile => file !== undefined)
        if (found.length === 0) return
        found.sort((a, b) => (a.path < b.path ? -1 : 1))
        folders.set(folder, { path: folder, files: found })
      }

      await new Promise<void>((resolve, reject) => {
        const pending: Array<string> = [""]
        let active = 0
        const pump = () => {
          while (active < WALK_CONCURRENCY && pending.length > 0) {
            const next = pending.pop()!
            active++
            visit(next, (child) => pending.push(child)).then(() => {
              active--
              if (active === 0 && pending.length === 0) resolve()
              else pump()
            }, reject)
          }
        }
        pump()
      })
      return { folders, sidecars, artistImages, skipped }
    },
    catch: (cause) => new LibraryFolderUnreadable({ message: unreadableMessage(root, cause) }),
  })
