/** Messages between the Navidrome import and its worker thread (navidromeWorker.ts). */
import type { NavidromeTarget } from "@tonearm/core"

/** The library the worker matches Navidrome's files against (columns, to keep the message small). */
export interface NavidromeCatalog {
  /** Our libraries' folders: a file whose location one holds is looked for in that library. */
  readonly libraries: ReadonlyArray<NavidromeTarget>
  readonly tracks: {
    readonly ids: ReadonlyArray<string>
    /** Stored paths (`library/libraryPaths.ts`: another library's carry its `/N/`). */
    readonly paths: ReadonlyArray<string>
    readonly mbids: ReadonlyArray<string | null>
    readonly albumIds: ReadonlyArray<string>
    readonly durations: ReadonlyArray<number>
  }
  readonly albums: ReadonlyArray<{
    readonly id: string
    readonly title: string
    readonly artist: string
    readonly mbid: string | null
  }>
  readonly artists: ReadonlyArray<{ readonly id: string; readonly name: string; readonly mbid: string | null }>
}

export interface NavidromeWorkerIn {
  readonly type: "read"
  readonly path: string
  readonly catalog: NavidromeCatalog
}

/** A media file some annotation or playlist names, and the library track it is (when path or MBID tell). */
export interface NdFile {
  readonly id: string
  readonly title: string
  readonly artist: string
  readonly album: string
  readonly mbid: string | null
  readonly durationMs: number
  /** When Navidrome first saw the file (the plays' spread starts after it). */
  readonly addedMs: number | null
  readonly trackId: string | null
  readonly trackDurationMs: number | null
  readonly how: "path" | "mbid" | null
}

export interface NdAnnotation {
  readonly userId: string
  readonly itemType: "media_file" | "album" | "artist"
  readonly itemId: string
  readonly playCount: number
  readonly playedMs: number | null
  /** 0 = none. */
  readonly rating: number
  readonly ratedMs: number | null
  readonly starred: boolean
  readonly starredMs: number | null
}

export interface NavidromeSnapshot {
  readonly users: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly files: ReadonlyArray<NdFile>
  /** Annotated albums and artists, with the library's album or artist they are (null: none). */
  readonly albums: ReadonlyArray<{ readonly id: string; readonly name: string; readonly albumId: string | null }>
  readonly artists: ReadonlyArray<{ readonly id: string; readonly name: string; readonly artistId: string | null }>
  readonly annotations: ReadonlyArray<NdAnnotation>
  readonly playlists: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly ownerId: string
    readonly smart: boolean
    /** Media file ids in Navidrome's order. */
    readonly entries: ReadonlyArray<string>
  }>
  /** Every media file in the database (for the summary). */
  readonly mediaFileCount: number
}

export type NavidromeWorkerOut =
  | { readonly type: "read"; readonly snapshot: NavidromeSnapshot }
  | { readonly type: "error"; readonly message: string; readonly badFile: boolean }
