import { Schema } from "effect"

/** Every entity id is a hyphenated UUID, branded so one kind can't be passed as another. */
const entityId = <const B extends string>(brand: B) => Schema.UUID.pipe(Schema.brand(brand))

export const UserId = entityId("UserId")
export type UserId = typeof UserId.Type
export const SessionId = entityId("SessionId")
export type SessionId = typeof SessionId.Type
export const ArtistId = entityId("ArtistId")
export type ArtistId = typeof ArtistId.Type
export const AlbumId = entityId("AlbumId")
export type AlbumId = typeof AlbumId.Type
export const TrackId = entityId("TrackId")
export type TrackId = typeof TrackId.Type
export const PlaylistId = entityId("PlaylistId")
export type PlaylistId = typeof PlaylistId.Type
export const PlayEventId = entityId("PlayEventId")
export type PlayEventId = typeof PlayEventId.Type
