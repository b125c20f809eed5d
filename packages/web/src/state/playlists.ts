import { signal } from "@preact/signals"
import type { PlaylistRow } from "@tonearm/core"
import { api, errorMessage } from "./api.js"
import { onServerEvent } from "./events.js"

/** The caller's playlists (row view), refreshed on every playlist event so all tabs agree. */
export const playlists = signal<ReadonlyArray<PlaylistRow>>([])

/** Whether the list was ever loaded, and the last load's failure: so a page never shows "Loading…" forever. */
export const playlistsLoaded = signal(false)
export const playlistsError = signal<string | undefined>(undefined)

export const loadPlaylists = async () => {
  try {
    playlists.value = await api((client) => client.playlists.list())
    playlistsLoaded.value = true
    playlistsError.value = undefined
  } catch (failure) {
    playlistsError.value = errorMessage(failure)
    throw failure
  }
}

onServerEvent("playlist.", () => void loadPlaylists().catch(() => undefined))
