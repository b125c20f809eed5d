import { Either, Encoding, Schema } from "effect"
import { AlbumRef, Artist, Track } from "../library/Library.js"
import { PlaylistRow } from "../playlists/Playlists.js"

/** What the change log records and sync pages carry (spec "Library sync"). */
export const SYNC_ENTITIES = [
  "artist",
  "album",
  "track",
  "playlist",
  "like_track",
  "like_album",
  "like_artist",
  "playlist_track",
] as const
export const SyncEntity = Schema.Literal(...SYNC_ENTITIES)
export type SyncEntity = typeof SyncEntity.Type

export const ChangeOperation = Schema.Literal("upsert", "delete")
export type ChangeOperation = typeof ChangeOperation.Type

/** Sync pages hold at most this many changed entities (contract leaves the size open). */
export const SYNC_PAGE_DEFAULT = 500
export const SYNC_PAGE_MAX = 5000

export const SyncQuery = Schema.Struct({
  /** Opaque; absent = from the beginning. */
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.positive())),
})

/** Likes and playlist entries travel as flat string maps with snake_case keys (spec "Library sync"). */
const FlatStrings = Schema.Record({ key: Schema.String, value: Schema.String })

const Ids = Schema.Array(Schema.String)

export class SyncUpserts extends Schema.Class<SyncUpserts>("SyncUpserts")({
  artists: Schema.Array(Artist),
  albums: Schema.Array(AlbumRef),
  tracks: Schema.Array(Track),
  playlists: Schema.Array(PlaylistRow),
  like_track: Schema.Array(FlatStrings),
  like_album: Schema.Array(FlatStrings),
  like_artist: Schema.Array(FlatStrings),
  playlist_track: Schema.Array(FlatStrings),
}) {}

export class SyncDeletes extends Schema.Class<SyncDeletes>("SyncDeletes")({
  artists: Ids,
  albums: Ids,
  tracks: Ids,
  playlists: Ids,
  like_track: Ids,
  like_album: Ids,
  like_artist: Ids,
  playlist_track: Ids,
}) {}

/** GET /api/library/sync (contract): changes after the cursor, paged; keep calling while has_more. */
export class SyncPage extends Schema.Class<SyncPage>("SyncPage")({
  cursor: Schema.String,
  has_more: Schema.Boolean,
  upserts: SyncUpserts,
  deletes: SyncDeletes,
}) {}

/** The cursor is the last change sequence a client has seen, base64url so clients treat it as opaque. */
export const encodeSyncCursor = (seq: number): string => Encoding.encodeBase64Url(`v1:${seq}`)

/** The sequence a cursor stands for: 0 for none, undefined when it is not one of ours. */
export const decodeSyncCursor = (cursor: string | undefined): number | undefined => {
  if (cursor === undefined || cursor === "") return 0
  const text = Either.getOrUndefined(Encoding.decodeBase64UrlString(cursor))
  const match = text === undefined ? null : /^v1:(\d{1,15})$/.exec(text)
  return match === null ? undefined : Number(match[1])
}
