import { type Dirent, promises as fs } from "node:fs"
import * as path from "node:path"
import { isAudioPath } from "@tonearm/core"
import { Effect } from "effect"

/** One audio file found on disk; `path` is relative to the library root with `/` separators. */
export interface FoundFile {
  readonly path: string
  readonly sizeBytes: number
  readonly mtimeMs: number
}

/** One folder: its audio files and the names of everything in it (for sidecar covers). */
export interface FoundFolder {
  readonly path: string
  readonly files: Array<FoundFile>
  readonly names: ReadonlyArray<string>
}

export interface SidecarStat {
  readonly name: string
  readonly mtimeMs: number
}

const toPosix = (relative: string) => relative.split(path.sep).join("/")

/** Every folder under the library root that holds audio files. Hidden entries and symlinked folders are skipped. */
export const walkLibrary = (root: string) =>
  Effect.tryPromise({
    try: async () => {
      const folders = new Map<string, FoundFolder>()
      const realRoot = await fs.realpath(root)
      const pending: Array<string> = [""]
      while (pending.length > 0) {
        const relative = pending.pop()!
        const absolute = path.join(root, relative)
        let entries: Array<Dirent>
        try {
          entries = await fs.readdir(absolute, { withFileTypes: true })
        } catch {
          continue // unreadable folder: skipped, the rest of the library still scans
        }
        const names: Array<string> = []
        const audio: Array<string> = []
        for (const entry of entries) {
          if (entry.name.startsWith(".")) continue
          names.push(entry.name)
          const child = relative === "" ? entry.name : path.join(relative, entry.name)
          if (entry.isDirectory()) pending.push(child)
          else if ((entry.isFile() || entry.isSymbolicLink()) && isAudioPath(entry.name)) audio.push(child)
        }
        if (audio.length === 0) continue
        const files: Array<FoundFile> = []
        await Promise.all(
          audio.map(async (child) => {
            try {
              const file = path.join(root, child)
              const stat = await fs.stat(file)
              if (!stat.isFile()) return
              if ((await fs.lstat(file)).isSymbolicLink()) {
                const target = await fs.realpath(file)
                if (!target.startsWith(realRoot + path.sep)) return // a link out of the library is never indexed
              }
              files.push({ path: toPosix(child), sizeBytes: stat.size, mtimeMs: Math.floor(stat.mtimeMs) })
            } catch {
              // vanished or unreadable between readdir and stat
            }
          }),
        )
        files.sort((a, b) => (a.path < b.path ? -1 : 1))
        folders.set(toPosix(relative), { path: toPosix(relative), files, names })
      }
      return folders
    },
    catch: (cause) => new Error(`cannot read the library folder ${root}: ${cause}`),
  })

export const statSidecar = (root: string, folder: string, name: string) =>
  Effect.promise(() =>
    fs
      .stat(path.join(root, folder, name))
      .then((stat): SidecarStat => ({ name, mtimeMs: Math.floor(stat.mtimeMs) }))
      .catch(() => undefined),
  )
