import { signal } from "@preact/signals"
import { api } from "./api.js"
import { onServerEvent } from "./events.js"

/** What the signed-in user likes, by kind: loaded at sign-in, kept current by the event stream (other tabs too). */
export type LikeKind = "track" | "album" | "artist"
export const liked = {
  track: signal<ReadonlySet<string>>(new Set()),
  album: signal<ReadonlySet<string>>(new Set()),
  artist: signal<ReadonlySet<string>>(new Set()),
}

const set = (kind: LikeKind, id: string, on: boolean) => {
  const next = new Set(liked[kind].value)
  if (on) next.add(id)
  else next.delete(id)
  liked[kind].value = next
}

export const loadLikes = async () => {
  const likes = await api((client) => client.likes.list())
  liked.track.value = new Set(likes.tracks.map((track) => track.id))
  liked.album.value = new Set(likes.albums.map((album) => album.id))
  liked.artist.value = new Set(likes.artists.map((artist) => artist.id))
}

for (const kind of ["track", "album", "artist"] as const) {
  onServerEvent(`${kind}.liked`, (event) => set(kind, String(event.data.id), true))
  onServerEvent(`${kind}.unliked`, (event) => set(kind, String(event.data.id), false))
}

export const toggleLike = async (kind: LikeKind, id: string) => {
  const on = !liked[kind].value.has(id)
  set(kind, id, on)
  const path = { id } as never
  try {
    await api((client) => {
      switch (kind) {
        case "track":
          return on ? client.likes.likeTrack({ path }) : client.likes.unlikeTrack({ path })
        case "album":
          return on ? client.likes.likeAlbum({ path }) : client.likes.unlikeAlbum({ path })
        case "artist":
          return on ? client.likes.likeArtist({ path }) : client.likes.unlikeArtist({ path })
      }
    })
  } catch (error) {
    set(kind, id, !on)
    throw error
  }
}
