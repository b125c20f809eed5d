import { signal } from "@preact/signals"
import type { PlaylistRow } from "@tonearm/core"
import { api } from "./api.js"
import { onServerEvent } from "./events.js"

/** The caller's playlists (row view), refreshed on every playlist event so all tabs agree. */
export const playlists = signal<ReadonlyArray<PlaylistRow>>([])

export const loadPlaylists = async () => {
  playlists.value = await api((client) => client.playlists.list())
}

onServerEvent("playlist.", () => void loadPlaylists().catch(() => undefined))
