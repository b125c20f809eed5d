import { useSignal } from "@preact/signals"
import type { Track } from "@tonearm/core"
import { errorMessage } from "../state/api.js"
import { enqueue } from "../state/player.js"
import { plural } from "./format.js"
import { Icon } from "./Icon.js"
import { Menu } from "./Menu.js"

/**
 * "Play next" / "Add to queue" for a whole album, artist, playlist or mix: a ⋯ menu beside its Play button. The
 * tracks are read only when chosen (an artist's albums are fetched then), and a short status says what was added.
 */
export function QueueMenu(props: {
  readonly label: string
  readonly tracks: () => ReadonlyArray<Track> | Promise<ReadonlyArray<Track>>
}) {
  const status = useSignal("")
  const add = async (where: "next" | "end") => {
    try {
      const tracks = await props.tracks()
      if (tracks.length === 0) return
      enqueue(tracks, where)
      status.value = `${plural(tracks.length, "track")} ${where === "next" ? "will play next" : "added to the queue"}.`
    } catch (error) {
      status.value = `Could not add to the queue: ${errorMessage(error)}`
    }
  }
  return (
    <>
      <Menu
        label={`More for ${props.label}`}
        items={() => [
          { label: "Play next", onSelect: () => void add("next") },
          { label: "Add to queue", onSelect: () => void add("end") },
        ]}
      >
        <Icon name="more" />
      </Menu>
      <span role="status" class="muted queue-status">
        {status.value}
      </span>
    </>
  )
}
