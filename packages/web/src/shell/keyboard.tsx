import { signal } from "@preact/signals"
import { useEffect, useRef } from "preact/hooks"
import { toggleLike } from "../state/likes.js"
import {
  current,
  cycleRepeat,
  next,
  previous,
  seekBy,
  setVolume,
  toggleMute,
  togglePlay,
  toggleShuffle,
  volume,
} from "../state/player.js"
import { navigate } from "../state/router.js"
import { closeLyrics, lyricsOpen } from "./LyricsPanel.js"

/** The keyboard shortcuts, one list for the handler and the help overlay (`?`). */
export const SHORTCUTS: ReadonlyArray<readonly [keys: string, what: string]> = [
  ["Space or K", "Play / pause"],
  ["← / →", "Seek back / forward 5 s"],
  ["Shift + ← / →", "Previous / next track"],
  ["Shift + ↑ / ↓", "Volume up / down"],
  ["M", "Mute / unmute"],
  ["S", "Shuffle on / off"],
  ["R", "Repeat: off → all → one"],
  ["L", "Like / unlike the playing track"],
  ["/", "Search"],
  ["Q", "Show the queue"],
  ["?", "This help"],
  ["Esc", "Close this help, or the lyrics"],
]

export const helpOpen = signal(false)

/** Typing in a field, or pressing Space/Enter on a button or link, belongs to that control, not to the player. */
const ownsKey = (target: EventTarget | null, key: string) => {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return true
  if ((key === " " || key === "Enter") && target.closest("button, a, [role=button], [role=option], [draggable=true]"))
    return true
  return false
}

let installed = false
export const installShortcuts = () => {
  if (installed) return
  installed = true
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || ownsKey(event.target, event.key)) return
    const shift = event.shiftKey
    const action: (() => void) | undefined = (() => {
      switch (event.key) {
        case " ":
        case "k":
          return togglePlay
        case "ArrowLeft":
          return shift ? previous : () => seekBy(-5)
        case "ArrowRight":
          return shift ? next : () => seekBy(5)
        case "ArrowUp":
          return shift ? () => setVolume(volume.value + 0.1) : undefined
        case "ArrowDown":
          return shift ? () => setVolume(volume.value - 0.1) : undefined
        case "m":
          return toggleMute
        case "s":
          return toggleShuffle
        case "r":
          return cycleRepeat
        case "l":
          return () => {
            const track = current.value
            if (track !== undefined) void toggleLike("track", track.id).catch(() => undefined)
          }
        case "/":
          return () => navigate("/search")
        case "q":
          return () => navigate("/queue")
        case "?":
          return () => {
            helpOpen.value = !helpOpen.value
          }
        case "Escape":
          return helpOpen.value ? () => (helpOpen.value = false) : lyricsOpen.value ? closeLyrics : undefined
        default:
          return undefined
      }
    })()
    if (action === undefined) return
    event.preventDefault()
    action()
  })
}

export function HelpOverlay() {
  const dialog = useRef<HTMLDialogElement>(null)
  const isOpen = helpOpen.value
  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (isOpen && !element.open) element.showModal()
    if (!isOpen && element.open) element.close()
  }, [isOpen])
  return (
    <dialog ref={dialog} aria-labelledby="help-title" onClose={() => (helpOpen.value = false)} class="help">
      <h2 id="help-title">Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => (helpOpen.value = false)}>
        Close
      </button>
    </dialog>
  )
}
