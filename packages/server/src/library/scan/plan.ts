import * as path from "node:path"
import type { KnownFile, KnownFolder } from "../CatalogRepository.js"
import { isDiscFolder } from "../catalogRows.js"
import type { FoundFile, FoundFolder, SidecarStat, WalkResult } from "../walk.js"

/** What the index held when the scan began. */
export interface KnownIndex {
  readonly tracks: ReadonlyMap<string, KnownFile>
  readonly errors: ReadonlyMap<string, KnownFile>
  readonly folders: ReadonlyMap<string, KnownFolder>
}

/** A folder to (re)read, with the cover its albums take. */
export interface DirtyFolder {
  readonly folder: FoundFolder
  readonly sidecar: SidecarStat | undefined
}

/** What changed since the index was written, and so what this scan does. */
export interface ScanPlan {
  readonly filesSeen: number
  /** Folders to (re)read, in walk order. */
  readonly dirty: ReadonlyArray<DirtyFolder>
  readonly filesToRead: number
  /** Indexed tracks whose files are gone. */
  readonly removedPaths: ReadonlyArray<string>
  /** Indexed folders no longer holding audio. */
  readonly foldersToForget: ReadonlyArray<string>
  /** Scan errors of files that are gone. */
  readonly errorsToForget: ReadonlyArray<string>
  /** Scan errors of files still there in folders not re-read: they still count in this scan's errors. */
  readonly errorsKept: number
}

/** A file is re-read when it is new to the index or its size or mtime changed. */
export const changed = (known: KnownFile | undefined, file: FoundFile): boolean =>
  known === undefined || known.sizeBytes !== file.sizeBytes || known.mtimeMs !== file.mtimeMs

/** The folder of a relative file path; the library root is "". */
export const folderOf = (file: string): string => {
  const folder = path.posix.dirname(file)
  return folder === "." ? "" : folder
}

/** A folder's own cover, else (for `CD1`-like folders) its parent's. */
export const sidecarOf = (folder: string, sidecars: ReadonlyMap<string, SidecarStat>): SidecarStat | undefined => {
  const own = sidecars.get(folder)
  if (own !== undefined || folder === "" || !isDiscFolder(folder)) return own
  return sidecars.get(folderOf(folder))
}

/**
 * Decides, without touching disk or database, what a scan must do. A folder is re-read when any of its
 * audio files is new, changed or gone, when it lost files, when its cover changed, or when a file that
 * was a scan error changed; `full` re-reads everything.
 */
export const plan = (walked: WalkResult, known: KnownIndex, full: boolean): ScanPlan => {
  const onDisk = new Set<string>()
  for (const folder of walked.folders.values()) for (const file of folder.files) onDisk.add(file.path)

  const removedPaths = [...known.tracks.keys()].filter((track) => !onDisk.has(track))
  const foldersLosingFiles = new Set(removedPaths.map(folderOf))

  const dirty: Array<DirtyFolder> = []
  let filesToRead = 0
  for (const folder of walked.folders.values()) {
    const sidecar = sidecarOf(folder.path, walked.sidecars)
    const knownFolder = known.folders.get(folder.path)
    const sidecarChanged =
      knownFolder === undefined ||
      knownFolder.sidecar !== (sidecar?.path ?? null) ||
      knownFolder.sidecarMtimeMs !== (sidecar?.mtimeMs ?? null)
    const filesChanged = folder.files.some((file) =>
      known.errors.has(file.path)
        ? changed(known.errors.get(file.path), file)
        : changed(known.tracks.get(file.path), file),
    )
    if (full || sidecarChanged || filesChanged || foldersLosingFiles.has(folder.path)) {
      dirty.push({ folder, sidecar })
      filesToRead += folder.files.length
    }
  }

  const reread = new Set(dirty.map(({ folder }) => folder.path))
  let errorsKept = 0
  for (const errorPath of known.errors.keys()) {
    if (onDisk.has(errorPath) && !reread.has(folderOf(errorPath))) errorsKept++
  }

  return {
    filesSeen: onDisk.size,
    dirty,
    filesToRead,
    removedPaths,
    foldersToForget: [...known.folders.keys()].filter((folder) => !walked.folders.has(folder)),
    errorsToForget: [...known.errors.keys()].filter((errorPath) => !onDisk.has(errorPath)),
    errorsKept,
  }
}
