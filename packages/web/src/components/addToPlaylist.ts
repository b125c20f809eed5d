import type { Track } from "@tonearm/core"
import { api } from "../state/api.js"
import { enqueue } from "../state/player.js"
import { playlists } from "../state/playlists.js"
import { startRadio } from "../state/radio.js"
import { asId } from "./ids.js"
import type { MenuItem } from "./Menu.js"

/**
 * The actions of a track's "more" menu: queue it, start a radio, flag it (quarantine), add it to one of the user's
 * own playlists, or to a new one.
 */
export const trackMenuItems = (tracks: ReadonlyArray<Track>): ReadonlyArray<MenuItem> => [
  { label: "Play next", onSelect: () => enqueue(tracks, "next") },
  { label: "Add to queue", onSelect: () => enqueue(tracks, "end") },
  ...(tracks.length === 1
    ? [
        {
          label: "Start radio",
          onSelect: () => void startRadio({ kind: "track", id: tracks[0]!.id }).catch(() => undefined),
        },
        {
          // Quarantine: the track leaves this listener's shuffle, radio and mixes until an admin resolves it.
          label: "Flag as broken…",
          onSelect: () => {
            const reason = prompt(`What is wrong with "${tracks[0]!.title}"?`)
            if (reason === null) return
            void api((client) =>
              client.quarantine.flag({ path: { id: tracks[0]!.id }, payload: { reason: reason.trim() } }),
            ).catch(() => undefined)
          },
        },
      ]
    : []),
  ...playlists.value
    .filter((playlist) => playlist.system_variant === null && !playlist.smart)
    .map((playlist) => ({
      label: `Add to ${playlist.name}`,
      onSelect: () =>
        void api((client) =>
          client.playlists.addTracks({
            path: { id: asId(playlist.id) },
            payload: { track_ids: tracks.map((track) => track.id) },
          }),
        ),
    })),
  {
    label: "Add to a new playlist…",
    onSelect: () => {
      const name = prompt("Name of the new playlist")?.trim()
      if (!name) return
      void api((client) => client.playlists.create({ payload: { name, track_ids: tracks.map((track) => track.id) } }))
    },
  },
]
