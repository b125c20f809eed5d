import { signal, useSignal } from "@preact/signals"
import type { Lyrics } from "@tonearm/core"
import { useEffect, useRef } from "preact/hooks"
import { TrackArtists } from "../components/ArtistLinks.js"
import { Icon } from "../components/Icon.js"
import { api, errorMessage, isApiError } from "../state/api.js"
import { activeLineIndex } from "../state/lyricsFollow.js"
import { current, position, seek } from "../state/player.js"

/** Whether the lyrics panel is open (the Lyrics button of the player bar toggles it). */
export const lyricsOpen = signal(false)

export const LYRICS_BUTTON_ID = "lyrics-button"

/** Lyrics asked for in this session, per track: each track's are asked once. */
const asked = new Map<string, Promise<Lyrics | null>>()
const ASKED_KEPT = 100

/**
 * A track's lyrics, asked once per track (the answer is kept): null when it has none (404 `not_found`). A
 * failure is not kept, so opening the panel again asks again; nothing retries on its own.
 */
const lyricsOf = (trackId: string): Promise<Lyrics | null> => {
  const known = asked.get(trackId)
  if (known !== undefined) return known
  const request = api((client) => client.library.lyrics({ path: { id: trackId as never } })).catch((error: unknown) => {
    if (isApiError(error) && error._tag === "NotFound") return null
    asked.delete(trackId)
    throw error
  })
  asked.set(trackId, request)
  if (asked.size > ASKED_KEPT) asked.delete(asked.keys().next().value!)
  return request
}

const SOURCE_LABEL: Record<Lyrics["source"], string> = {
  lrc: "a .lrc file",
  txt: "a .txt file",
  embedded: "the file's tags",
}

/** After the listener scrolls the lyrics themselves, the panel stops following playback for this long. */
const FOLLOW_PAUSE_MS = 4_000

type State =
  | { readonly trackId: string; readonly status: "loading" }
  | { readonly trackId: string; readonly status: "loaded"; readonly lyrics: Lyrics | null }
  | { readonly trackId: string; readonly status: "failed"; readonly error: string }

/**
 * The button that opens and closes the panel: in the player bar, and on a phone in the mini player (the panel is
 * a sheet above it there, so play/pause and next stay at hand while reading).
 */
export function LyricsButton() {
  return (
    <button
      type="button"
      id={LYRICS_BUTTON_ID}
      class="icon"
      aria-label="Lyrics"
      aria-expanded={lyricsOpen.value}
      aria-controls={lyricsOpen.value ? "lyrics-panel" : undefined}
      onClick={() => (lyricsOpen.value = !lyricsOpen.value)}
    >
      <Icon name="lyrics" />
    </button>
  )
}

/** Closes the panel and gives the focus back to the Lyrics button (Escape, the close button). */
export const closeLyrics = () => {
  lyricsOpen.value = false
  document.getElementById(LYRICS_BUTTON_ID)?.focus()
}

/**
 * The playing track's lyrics, beside the page (a sheet over it on a phone). Synced lyrics highlight the line
 * being sung and scroll to keep it in view; activating a line seeks there. Unsynced lyrics are shown as text.
 * Lyrics load once per track, only while the panel is open.
 */
export function LyricsPanel() {
  const open = lyricsOpen.value
  const track = current.value
  const trackId = track?.id
  const state = useSignal<State | undefined>(undefined)
  const panel = useRef<HTMLElement>(null)
  const body = useRef<HTMLDivElement>(null)
  const userScrolledAt = useRef(0)

  useEffect(() => {
    if (!open || trackId === undefined) return
    const known = state.peek()
    if (known !== undefined && known.trackId === trackId && known.status !== "failed") return
    let cancelled = false
    state.value = { trackId, status: "loading" }
    lyricsOf(trackId).then(
      (lyrics) => {
        if (!cancelled) state.value = { trackId, status: "loaded", lyrics }
      },
      (error: unknown) => {
        if (!cancelled) state.value = { trackId, status: "failed", error: errorMessage(error) }
      },
    )
    return () => {
      cancelled = true
    }
  }, [open, trackId])

  useEffect(() => {
    if (open) panel.current?.focus({ preventScroll: true })
  }, [open])

  const shown = state.value !== undefined && state.value.trackId === trackId ? state.value : undefined
  const lyrics = shown?.status === "loaded" ? shown.lyrics : null
  const synced = lyrics?.synced ? lyrics.lines : undefined
  // Reading the position here re-renders the open panel as playback moves (a few times a second).
  const active = open && synced !== undefined ? activeLineIndex(synced, position.value * 1000) : -1

  // Follow playback: keep the current line in the middle of the panel, unless the listener just scrolled it.
  useEffect(() => {
    const scroller = body.current
    if (active < 0 || scroller === null) return
    if (Date.now() - userScrolledAt.current < FOLLOW_PAUSE_MS) return
    const line = scroller.querySelector<HTMLElement>(`[data-line="${active}"]`)
    if (line === null) return
    const top = line.offsetTop - scroller.clientHeight / 2 + line.offsetHeight / 2
    const still = matchMedia("(prefers-reduced-motion: reduce)").matches
    scroller.scrollTo({ top: Math.max(0, top), behavior: still ? "auto" : "smooth" })
  }, [open, active, trackId, synced])

  // The listener scrolling the lyrics (wheel, touch, keys) pauses following for a while.
  useEffect(() => {
    const scroller = body.current
    if (!open || scroller === null) return
    const userScrolled = () => {
      userScrolledAt.current = Date.now()
    }
    const keys = (event: KeyboardEvent) => {
      if (/^(ArrowUp|ArrowDown|PageUp|PageDown|Home|End)$/.test(event.key)) userScrolled()
    }
    scroller.addEventListener("wheel", userScrolled, { passive: true })
    scroller.addEventListener("touchmove", userScrolled, { passive: true })
    scroller.addEventListener("keydown", keys)
    return () => {
      scroller.removeEventListener("wheel", userScrolled)
      scroller.removeEventListener("touchmove", userScrolled)
      scroller.removeEventListener("keydown", keys)
    }
  }, [open])

  if (!open) return null
  return (
    <aside
      id="lyrics-panel"
      class="lyrics-panel"
      aria-labelledby="lyrics-title"
      tabIndex={-1}
      ref={panel}
      onKeyDown={(event) => {
        if (event.key !== "Escape") return
        event.preventDefault()
        event.stopPropagation()
        closeLyrics()
      }}
    >
      <header class="lyrics-head">
        <div class="lyrics-titles">
          <h2 id="lyrics-title">Lyrics</h2>
          {track !== undefined && (
            <p class="muted">
              <span class="lyrics-track">{track.title}</span> · <TrackArtists track={track} />
            </p>
          )}
        </div>
        <button type="button" class="icon" aria-label="Close lyrics" onClick={closeLyrics}>
          <Icon name="close" />
        </button>
      </header>
      <div class="lyrics-body" ref={body}>
        {track === undefined ? (
          <p class="muted lyrics-note">Nothing is playing. Lyrics of the playing track show here.</p>
        ) : shown === undefined || shown.status === "loading" ? (
          <p class="muted lyrics-note">Loading lyrics…</p>
        ) : shown.status === "failed" ? (
          <p role="alert" class="lyrics-note">
            Could not load the lyrics: {shown.error}
          </p>
        ) : lyrics === null ? (
          <div class="lyrics-empty" data-testid="lyrics-empty">
            <span class="empty-icon">
              <Icon name="lyrics" />
            </span>
            <p class="lyrics-note-text">No lyrics for this track.</p>
            <p class="muted lyrics-note-text">
              Tonearm shows lyrics from a .lrc or .txt file next to the audio file, or from the file's own tags.
            </p>
          </div>
        ) : synced !== undefined ? (
          <ol class="lyrics-lines synced" aria-label={`Lyrics of ${track.title}`}>
            {synced.map((line, index) => (
              <li
                key={index}
                data-line={index}
                class={index === active ? "current" : index < active ? "past" : undefined}
              >
                <button
                  type="button"
                  class="lyric-line"
                  aria-current={index === active ? "true" : undefined}
                  onClick={() => {
                    userScrolledAt.current = 0
                    if (line.start_ms !== null) seek(line.start_ms / 1000)
                  }}
                >
                  {line.text === "" ? "♪" : line.text}
                </button>
              </li>
            ))}
          </ol>
        ) : (
          <div class="lyrics-lines plain" data-testid="lyrics-text">
            {lyrics.lines.map((line, index) =>
              line.text === "" ? <div key={index} class="verse-gap" /> : <p key={index}>{line.text}</p>,
            )}
          </div>
        )}
        {lyrics !== null && shown?.status === "loaded" && (
          <p class="muted lyrics-source">
            {lyrics.synced ? "Synced lyrics" : "Lyrics"} from {SOURCE_LABEL[lyrics.source]}
          </p>
        )}
      </div>
    </aside>
  )
}
