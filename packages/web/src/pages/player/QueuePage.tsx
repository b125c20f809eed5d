import { useSignal } from "@preact/signals"
import type { Track } from "@tonearm/core"
import { useLayoutEffect, useRef } from "preact/hooks"
import { TrackArtists } from "../../components/ArtistLinks.js"
import { formatMs, plural } from "../../components/format.js"
import { Icon } from "../../components/Icon.js"
import { current, index, playIndex, queue, removeFromQueue, source } from "../../state/player.js"
import { playlists } from "../../state/playlists.js"
import { clearQueue, moveInQueue } from "../../state/queue.js"

/** Where the queue came from, in words: the album, artist or playlist by name, a mix or radio by its kind. */
const sourceLabel = (value: string, tracks: ReadonlyArray<Track>) => {
  const [kind, id] = value.split(/:(.*)/s)
  if (kind === "album") return tracks.find((track) => track.album_id === id)?.album_title ?? "an album"
  if (kind === "artist") return tracks.find((track) => track.artist_id === id)?.artist_name ?? "an artist"
  if (kind === "playlist") return playlists.value.find((playlist) => playlist.id === id)?.name ?? "a playlist"
  if (kind === "radio") return "a radio"
  const mix = playlists.value.find((playlist) => playlist.system_variant === value)
  if (mix !== undefined) return mix.name
  const words = value.replace(/[_:]/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * What plays now and next: activate an entry to jump to it; reorder by dragging a row's handle (mouse, pen or
 * touch), with its ↑/↓ buttons, or with Alt+↑/↓ on a focused handle (focus follows the row); remove entries; clear
 * everything but the playing track.
 */
export default function QueuePage() {
  const list = queue.value
  const playingAt = index.value
  const drag = useSignal<{ readonly from: number; readonly over: number } | undefined>(undefined)
  const message = useSignal("")
  const rows = useRef<HTMLOListElement>(null)
  // After a move from the keyboard, the moved row's handle gets the focus back (its row was re-rendered).
  const refocus = useRef<number | undefined>(undefined)
  useLayoutEffect(() => {
    const at = refocus.current
    if (at === undefined) return
    refocus.current = undefined
    rows.current?.querySelector<HTMLElement>(`[data-queue-at="${at}"] .drag-handle`)?.focus()
  })

  const move = (from: number, to: number, byKeyboard = false) => {
    if (to < 0 || to >= list.length || from === to) return
    const track = list[from]!
    moveInQueue(from, to)
    if (byKeyboard) refocus.current = to
    message.value = `Moved ${track.title} to position ${to + 1} of ${list.length}.`
  }
  const remove = (at: number) => {
    const track = list[at]!
    removeFromQueue(at)
    message.value = `Removed ${track.title} from the queue.`
  }
  const clear = () => {
    clearQueue()
    message.value = current.value === undefined ? "Queue cleared." : "Queue cleared: the playing track stays."
  }
  /** The row under a pointer's height (above the first: the first; below the last: the last). */
  const rowAt = (y: number) => {
    const items = [...(rows.current?.children ?? [])]
    if (items.length === 0) return undefined
    const found = items.findIndex((item) => y < item.getBoundingClientRect().bottom)
    return found < 0 ? items.length - 1 : found
  }

  return (
    <section class="queue-page">
      <h1>Queue</h1>
      {current.value === undefined ? (
        <p class="muted">The queue is empty: play an album, a playlist or a track, or add them with “Add to queue”.</p>
      ) : (
        <div class="queue-summary">
          <p class="muted">
            {plural(list.length, "track")}
            {source.value ? ` · from ${sourceLabel(source.value, list)}` : ""}
          </p>
          <button type="button" onClick={clear} disabled={list.length <= 1}>
            Clear queue
          </button>
        </div>
      )}
      <p role="status" class="muted">
        {message.value}
      </p>
      <ol
        class="list playlist-entries queue-entries"
        aria-label="Queue"
        aria-describedby={list.length > 1 ? "queue-help" : undefined}
        ref={rows}
      >
        {list.map((track, at) => {
          const dragged = drag.value
          const classes = [
            at === playingAt ? "current" : "",
            dragged !== undefined && dragged.over === at && dragged.from !== at ? "drag-over" : "",
            dragged?.from === at ? "dragging" : "",
          ]
          return (
            <li
              key={`${at}:${track.id}`}
              data-queue-at={at}
              aria-current={at === playingAt ? "true" : undefined}
              class={classes.filter(Boolean).join(" ")}
            >
              <button
                type="button"
                class="icon drag-handle"
                aria-label={`Reorder ${track.title}: drag, or Alt+↑ / Alt+↓`}
                onKeyDown={(event) => {
                  if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return
                  event.preventDefault()
                  event.stopPropagation()
                  move(at, event.key === "ArrowUp" ? at - 1 : at + 1, true)
                }}
                onPointerDown={(event) => {
                  if (event.button !== 0) return
                  event.preventDefault()
                  event.currentTarget.setPointerCapture(event.pointerId)
                  drag.value = { from: at, over: at }
                }}
                onPointerMove={(event) => {
                  const dragging = drag.value
                  if (dragging === undefined) return
                  const over = rowAt(event.clientY)
                  if (over !== undefined && over !== dragging.over) drag.value = { ...dragging, over }
                }}
                onPointerUp={() => {
                  const dragging = drag.value
                  drag.value = undefined
                  if (dragging !== undefined) move(dragging.from, dragging.over)
                }}
                onPointerCancel={() => (drag.value = undefined)}
              >
                <Icon name="drag" />
              </button>
              <span class="muted num">{at + 1}</span>
              <button type="button" class="link-like" onClick={() => playIndex(at)} aria-label={`Play ${track.title}`}>
                {track.title}
              </button>
              {at === playingAt && <span class="badge">Now playing</span>}
              <span class="muted">
                <TrackArtists track={track} />
              </span>
              <span class="muted time">{formatMs(track.duration_ms)}</span>
              <button
                type="button"
                class="icon"
                aria-label={`Move ${track.title} up`}
                disabled={at === 0}
                onClick={() => move(at, at - 1)}
              >
                <Icon name="up" />
              </button>
              <button
                type="button"
                class="icon"
                aria-label={`Move ${track.title} down`}
                disabled={at === list.length - 1}
                onClick={() => move(at, at + 1)}
              >
                <Icon name="down" />
              </button>
              <button
                type="button"
                class="icon"
                aria-label={`Remove ${track.title} from the queue`}
                disabled={at === playingAt}
                onClick={() => remove(at)}
              >
                <Icon name="close" />
              </button>
            </li>
          )
        })}
      </ol>
      {list.length > 1 && (
        <p id="queue-help" class="muted">
          Drag a row by its handle, use its ↑/↓ buttons, or focus the handle and press Alt+↑ / Alt+↓.
        </p>
      )}
    </section>
  )
}
