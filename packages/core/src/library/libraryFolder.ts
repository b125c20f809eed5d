import { Either } from "effect"

/**
 * What the scanner never looks into: metadata that operating systems, NAS boxes, sync tools and version
 * control leave inside a music folder. A name that merely starts with a dot is music like any other (a band
 * folder `.38 Special`); only these names are hidden metadata. Matched in any letter case.
 *
 * - macOS: `.DS_Store`, AppleDouble files `._*` and folders `.AppleDouble`, `.AppleDB`, `.AppleDesktop`,
 *   `.Spotlight-V100`, `.fseventsd`, `.TemporaryItems`, `.DocumentRevisions-V100`;
 * - trash folders: `.Trash`, `.Trashes`, `.Trash-<uid>` (Linux desktops on removable disks);
 * - version control: `.git`;
 * - Synology: `@eaDir` (thumbnails and index data beside every file), `#recycle`, `#snapshot`;
 * - sync tools: Syncthing's `.stfolder` and `.stversions`, Resilio's `.sync` (old copies of changed files:
 *   indexing them would list every changed track twice);
 * - `lost+found`: what a file-system check recovered, named by inode number, never an album;
 * - Windows on a removable disk: `$RECYCLE.BIN`, `System Volume Information`.
 */
export const HIDDEN_METADATA_NAMES = [
  ".ds_store",
  ".appledouble",
  ".appledb",
  ".appledesktop",
  ".spotlight-v100",
  ".fseventsd",
  ".temporaryitems",
  ".documentrevisions-v100",
  ".git",
  "@eadir",
  "#recycle",
  "#snapshot",
  ".stfolder",
  ".stversions",
  ".sync",
  "lost+found",
  "$recycle.bin",
  "system volume information",
] as const

const HIDDEN_NAMES: ReadonlySet<string> = new Set(HIDDEN_METADATA_NAMES)
const TRASH = /^\.trash(?:es|-\d+)?$/i

/** Whether one file or folder name is hidden metadata (see HIDDEN_METADATA_NAMES; `._*` and `.Trash*` too). */
export const isHiddenMetadata = (name: string): boolean =>
  name.startsWith("._") || TRASH.test(name) || HIDDEN_NAMES.has(name.toLowerCase())

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** `*` is any run of characters and `?` one character, neither crossing a `/`; the rest is literal. */
const globToRegExp = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split(/([*?])/)
      .map((part) => (part === "*" ? "[^/]*" : part === "?" ? "[^/]" : escapeRegExp(part)))
      .join("")}$`,
    "i",
  )

/**
 * `TONEARM_SCAN_IGNORE`: names separated by commas (`Podcasts, *.partial, Audiobooks/Drafts`), or a JSON array
 * of strings when a name holds a comma. Blank entries are dropped. Left: why the text is not a list.
 */
export const parseScanIgnore = (text: string): Either.Either<ReadonlyArray<string>, string> => {
  const trimmed = text.trim()
  if (trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === "string"))
        return Either.right(parsed.map((item: string) => item.trim()).filter((item) => item !== ""))
    } catch {}
    return Either.left('must be names separated by commas, or a JSON array of strings such as ["Podcasts", "*.tmp"]')
  }
  return Either.right(
    trimmed
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  )
}

/**
 * Decides, for a path relative to the library folder (`/` separators), whether the scanner skips it (a
 * folder: with everything in it). Hidden metadata always is; so is whatever matches one of the operator's
 * `patterns`, in any letter case: a pattern without `/` matches a file or folder name at any depth
 * (`Podcasts`, `*.partial`), one with `/` the whole path from the library folder (`Audiobooks/Drafts`, `/Podcasts`
 * for the top-level folder only). `*` and `?` never cross a `/`; a trailing `/` is ignored.
 */
export const scanIgnoreRule = (patterns: ReadonlyArray<string>): ((relativePath: string) => boolean) => {
  const names: Array<RegExp> = []
  const paths: Array<RegExp> = []
  for (const raw of patterns) {
    const pattern = raw.trim().replace(/\/+$/, "")
    if (pattern === "") continue
    if (pattern.includes("/")) paths.push(globToRegExp(pattern.replace(/^\/+/, "")))
    else names.push(globToRegExp(pattern))
  }
  return (relativePath) => {
    const name = relativePath.slice(relativePath.lastIndexOf("/") + 1)
    return (
      isHiddenMetadata(name) ||
      names.some((pattern) => pattern.test(name)) ||
      paths.some((pattern) => pattern.test(relativePath))
    )
  }
}

/** Image extensions of an artist image, in order of preference (as the album sidecar's). */
const ARTIST_IMAGE_EXTENSIONS = [".jpg", ".jpeg", ".png", ".webp"] as const

/** The artist image among a folder's file names: `artist.jpg`, `.jpeg`, `.png` or `.webp`, in any letter case. */
export const pickArtistImage = (fileNames: ReadonlyArray<string>): string | undefined => {
  let best: { name: string; rank: number } | undefined
  for (const name of fileNames) {
    const lower = name.toLowerCase()
    if (!lower.startsWith("artist.")) continue
    const rank = ARTIST_IMAGE_EXTENSIONS.indexOf(
      lower.slice("artist".length) as (typeof ARTIST_IMAGE_EXTENSIONS)[number],
    )
    if (rank < 0) continue
    if (best === undefined || rank < best.rank || (rank === best.rank && name < best.name)) best = { name, rank }
  }
  return best?.name
}

/** Present tracks of one album artist in one album folder (a disc folder counts as its album's folder). */
export interface AlbumFolderTracks {
  readonly artistId: string
  /** Relative to the library folder, `/` separators; the library folder itself is "". */
  readonly albumFolder: string
  readonly tracks: number
}

const parentOf = (folder: string) => {
  const slash = folder.lastIndexOf("/")
  return slash < 0 ? "" : folder.slice(0, slash)
}

/**
 * Which artist image (`artist.*`, by folder) each album artist takes. An image may sit in the artist's folder
 * (the parent of an album folder) or in an album folder itself; the library folder is nobody's artist folder.
 * An image belongs to one artist: the album artist with the most tracks in the album folders it serves (ties:
 * the smaller id), so a collaboration album filed under its main artist does not take that artist's picture.
 * An artist with several images takes one from an artist folder before one from an album folder, then the one
 * serving most of its tracks, then the first path. Answers artist id → the image's relative path.
 */
export const chooseArtistImages = (
  albumFolders: ReadonlyArray<AlbumFolderTracks>,
  images: ReadonlyMap<string, string>,
): Map<string, string> => {
  // image folder → artist → { tracks, level } (level 0: an artist folder, 1: an album folder)
  const served = new Map<string, Map<string, { tracks: number; level: number }>>()
  const serve = (folder: string, level: number, artistId: string, tracks: number) => {
    if (folder === "" || !images.has(folder)) return
    const byArtist = served.get(folder) ?? new Map<string, { tracks: number; level: number }>()
    served.set(folder, byArtist)
    const tally = byArtist.get(artistId)
    if (tally === undefined) byArtist.set(artistId, { tracks, level })
    else byArtist.set(artistId, { tracks: tally.tracks + tracks, level: Math.min(tally.level, level) })
  }
  for (const { artistId, albumFolder, tracks } of albumFolders) {
    if (albumFolder === "") continue
    serve(parentOf(albumFolder), 0, artistId, tracks)
    serve(albumFolder, 1, artistId, tracks)
  }
  const best = new Map<string, { path: string; tracks: number; level: number }>()
  for (const [folder, byArtist] of served) {
    let owner: { artistId: string; tracks: number; level: number } | undefined
    for (const [artistId, tally] of byArtist) {
      if (
        owner === undefined ||
        tally.tracks > owner.tracks ||
        (tally.tracks === owner.tracks && artistId < owner.artistId)
      )
        owner = { artistId, ...tally }
    }
    if (owner === undefined) continue
    const path = images.get(folder)!
    const current = best.get(owner.artistId)
    if (
      current === undefined ||
      owner.level < current.level ||
      (owner.level === current.level &&
        (owner.tracks > current.tracks || (owner.tracks === current.tracks && path < current.path)))
    )
      best.set(owner.artistId, { path, tracks: owner.tracks, level: owner.level })
  }
  return new Map([...best].map(([artistId, choice]) => [artistId, choice.path]))
}
