import { useSignal } from "@preact/signals"
import type { Track } from "@tonearm/core"
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { current, playQueue } from "../state/player.js"
import { TrackArtists } from "./ArtistLinks.js"
import { trackMenuItems } from "./addToPlaylist.js"
import { formatMs } from "./format.js"
import { Icon } from "./Icon.js"
import { LikeButton } from "./LikeButton.js"
import { Menu } from "./Menu.js"

export const ROW_HEIGHT = 44
const OVERSCAN = 10

/**
 * Which rows of a list of `count` fixed-height rows are on screen, for a list that scrolls with the window:
 * only those are rendered (plus some overscan), between two spacers, so 20,000 rows cost what 30 do.
 */
export const useWindowedRange = (count: number, rowHeight: number) => {
  const container = useRef<HTMLDivElement>(null)
  const range = useSignal({ start: 0, end: Math.min(count, 60) })
  useEffect(() => {
    let frame = 0
    const update = () => {
      frame = 0
      const element = container.current
      if (element === null) return
      const top = element.getBoundingClientRect().top
      const start = Math.max(0, Math.floor(-top / rowHeight) - OVERSCAN)
      const end = Math.min(count, Math.ceil((window.innerHeight - top) / rowHeight) + OVERSCAN)
      if (start !== range.value.start || end !== range.value.end) range.value = { start, end: Math.max(start, end) }
    }
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(update)
    }
    update()
    addEventListener("scroll", schedule, { passive: true })
    addEventListener("resize", schedule)
    return () => {
      removeEventListener("scroll", schedule)
      removeEventListener("resize", schedule)
      if (frame !== 0) cancelAnimationFrame(frame)
    }
  }, [count, rowHeight])
  return { container, range: range.value }
}

export interface TrackListProps {
  readonly tracks: ReadonlyArray<Track>
  /** The play-event source of plays started here (`album:<id>`…); none for a plain search play. */
  readonly source?: string
  readonly label: string
  readonly showAlbum?: boolean
  /** Track numbers from the tags (an album) rather than positions. */
  readonly numbered?: boolean
  /**
   * What a play from this list queues, when the list is part of it (one disc of an album): that queue, and
   * where this list starts in it. By default the list itself.
   */
  readonly queue?: ReadonlyArray<Track>
  readonly queueStart?: number
  /** Something more in a row's actions (a system mix's pick reason), by the row's position in `tracks`. */
  readonly rowExtra?: (at: number) => ComponentChildren
}

/** A virtualised track list: activate a title to play the list from that track. */
export function TrackList(props: TrackListProps) {
  const { tracks } = props
  const { container, range } = useWindowedRange(tracks.length, ROW_HEIGHT)
  const playing = current.value?.id
  // Disc-track numbers ("2-3") when the list spans several discs; one disc (or a disc's own list): the track number.
  const multiDisc = props.numbered === true && new Set(tracks.map((track) => track.disc_number ?? 1)).size > 1
  const rows = tracks.slice(range.start, range.end)
  return (
    <div class="tracks">
      <ol
        ref={container as never}
        class="virtual"
        aria-label={props.label}
        style={{ height: tracks.length * ROW_HEIGHT, paddingTop: range.start * ROW_HEIGHT }}
      >
        {rows.map((track, offset) => {
          const at = range.start + offset
          return (
            <li
              key={`${at}:${track.id}`}
              aria-setsize={tracks.length}
              aria-posinset={at + 1}
              class={`track-row${playing === track.id ? " current" : ""}`}
              data-track-id={track.id}
            >
              <span class="num">
                {props.numbered
                  ? multiDisc
                    ? `${track.disc_number ?? 1}-${track.track_number ?? ""}`
                    : (track.track_number ?? "")
                  : at + 1}
              </span>
              <span class="t">
                <button
                  type="button"
                  class="play-track"
                  aria-label={`Play ${track.title}`}
                  onClick={() =>
                    playQueue(props.queue ?? tracks, {
                      startIndex: (props.queueStart ?? 0) + at,
                      ...(props.source ? { source: props.source } : {}),
                    })
                  }
                >
                  {track.title}
                </button>
              </span>
              <span class="t muted">
                <TrackArtists track={track} />
                {props.showAlbum && (
                  <>
                    {" · "}
                    <a href={`/albums/${track.album_id}`}>{track.album_title}</a>
                  </>
                )}
              </span>
              <span class="muted time">{formatMs(track.duration_ms)}</span>
              <span class="row-actions">
                {props.rowExtra?.(at)}
                <LikeButton kind="track" id={track.id} label={track.title} />
                <Menu label={`More for ${track.title}`} items={() => trackMenuItems([track])}>
                  <Icon name="more" />
                </Menu>
              </span>
            </li>
          )
        })}
      </ol>
    </div>
  )
}
