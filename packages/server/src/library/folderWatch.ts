import * as fs from "node:fs"
import * as path from "node:path"

/** A running folder watch: `close` ends every watch; `folders` is how many it holds. */
export interface FolderWatch {
  readonly folders: () => number
  readonly close: () => void
}

/**
 * Watches every folder under `root` (`wanted` says which, by path relative to it) with one non-recursive
 * `fs.watch` each, i.e. one inotify watch per folder, and calls `onChange` with the path of whatever changed in
 * one. Only folders are held: @parcel/watcher kept an in-memory entry for every file of the library (~350 bytes
 * each: ~35 MB resident at 100k tracks, ~350 MB at a million), which a watcher that only wakes a scan never reads.
 * A folder created later is watched with everything below it; a folder removed drops its watches. Answers once
 * the first walk has watched every folder; fails when one cannot be watched (the inotify limit): none are then
 * kept, and the caller goes on without a watcher.
 */
export const watchFolders = async (
  root: string,
  wanted: (relative: string) => boolean,
  onChange: (changed: string) => void,
  onError: (error: Error) => void,
): Promise<FolderWatch> => {
  const watches = new Map<string, fs.FSWatcher>()
  let closed = false

  const forget = (folder: string) => {
    const prefix = `${folder}${path.sep}`
    for (const [watched, watcher] of watches) {
      if (watched === folder || watched.startsWith(prefix)) {
        watcher.close()
        watches.delete(watched)
      }
    }
  }

  /** A name in `folder` changed: a new folder is watched (with its subfolders), a removed one is forgotten. */
  const changed = (folder: string, name: string | null) => {
    const full = name === null ? folder : path.join(folder, name)
    onChange(full)
    if (name === null) return
    fs.stat(full, (error, stat) => {
      if (closed) return
      if (error !== null) {
        if (watches.has(full)) forget(full)
      } else if (stat.isDirectory() && !watches.has(full)) {
        walk(full).catch((cause: Error) => onError(cause))
      }
    })
  }

  const watchOne = (folder: string) => {
    if (closed || watches.has(folder)) return
    const watcher = fs.watch(folder, { persistent: false }, (_event, name) => changed(folder, name))
    // The folder went away (or the watch broke): forget it; its parent's event wakes the scan.
    watcher.on("error", () => forget(folder))
    watches.set(folder, watcher)
  }

  /** Watches `top` and every wanted folder below it, one folder's entries at a time (no stat per file). */
  const walk = async (top: string) => {
    const pending = [top]
    while (pending.length > 0 && !closed) {
      const folder = pending.pop()!
      let entries: Array<fs.Dirent>
      try {
        entries = await fs.promises.readdir(folder, { withFileTypes: true })
      } catch {
        continue // removed meanwhile, or unreadable: the scan reports what matters
      }
      watchOne(folder)
      for (const entry of entries) {
        if (!entry.isDirectory()) continue
        const child = path.join(folder, entry.name)
        if (wanted(path.relative(root, child))) pending.push(child)
      }
    }
  }

  const close = () => {
    closed = true
    for (const watcher of watches.values()) watcher.close()
    watches.clear()
  }
  try {
    await walk(root)
  } catch (error) {
    close()
    throw error
  }
  if (!watches.has(root)) {
    close()
    throw new Error(`${root} cannot be read`)
  }
  return { folders: () => watches.size, close }
}
