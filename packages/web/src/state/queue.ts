import { batch } from "@preact/signals"
import { current, index, queue } from "./player.js"

/**
 * Queue edits the Queue page makes, beside player.ts's `enqueue` and `removeFromQueue`: the playing entry stays
 * the playing one wherever it moves.
 */

/** Moves the entry at `from` to position `to`. */
export const moveInQueue = (from: number, to: number) => {
  const list = [...queue.value]
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return
  const [entry] = list.splice(from, 1)
  list.splice(to, 0, entry!)
  const at = index.value
  const followed = at === from ? to : from < at && to >= at ? at - 1 : from > at && to <= at ? at + 1 : at
  batch(() => {
    queue.value = list
    index.value = followed
  })
}

/** Clears the queue as Spotify does: what plays now keeps playing, everything else goes. */
export const clearQueue = () => {
  const playing = current.value
  batch(() => {
    queue.value = playing === undefined ? [] : [playing]
    index.value = playing === undefined ? -1 : 0
  })
}
