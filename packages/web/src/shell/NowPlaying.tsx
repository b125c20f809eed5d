import { signal } from "@preact/signals"
import { useEffect, useRef } from "preact/hooks"
import { TrackArtists } from "../components/ArtistLinks.js"
import { Cover } from "../components/Cover.js"
import { formatTime } from "../components/format.js"
import { Icon } from "../components/Icon.js"
import { LikeButton } from "../components/LikeButton.js"
import { current, duration, index, next, playIndex, playing, position, queue, togglePlay } from "../state/player.js"
import { pathname } from "../state/router.js"
import { isPhone } from "../state/viewport.js"
import { CastButton } from "./CastButton.js"
import { LyricsButton, lyricsOpen } from "./LyricsPanel.js"
import { SeekSlider, TransportControls } from "./TransportControls.js"

/** Whether the full-screen Now Playing (the phone's player) is open. */
export const nowPlayingOpen = signal(false)

const OPEN_BUTTON_ID = "now-playing-open"
/** How many upcoming tracks Now Playing lists (the queue page has them all). */
const UP_NEXT = 5

/** The history entry Now Playing pushes, so the phone's back gesture closes it instead of leaving the page. */
const isOwnEntry = (state: unknown) =>
  typeof state === "object" && state !== null && (state as { nowPlaying?: unknown }).nowPlaying === true

export const openNowPlaying = () => {
  if (nowPlayingOpen.value) return
  history.pushState({ nowPlaying: true }, "", window.location.href)
  nowPlayingOpen.value = true
}

/** Closes it: by the close button or Escape (its history entry is taken back too), or by back itself. */
/** Whether the focus goes back to the mini player on closing (not when a link inside was followed). */
let refocus = true

export const closeNowPlaying = () => {
  if (!nowPlayingOpen.value) return
  refocus = true
  nowPlayingOpen.value = false
  if (isOwnEntry(history.state)) history.back()
}

/** Now Playing's Lyrics button: the sheet steps aside for the lyrics, which take the focus. */
const showLyrics = () => {
  closeNowPlaying()
  refocus = false
  lyricsOpen.value = true
}

addEventListener("popstate", (event) => {
  if (nowPlayingOpen.value && !isOwnEntry(event.state)) {
    refocus = true
    nowPlayingOpen.value = false
  }
})

/** The playing track's progress as a thin line (the mini player has no room for a seek bar). */
function Progress() {
  const ratio = duration.value > 0 ? Math.min(1, position.value / duration.value) : 0
  return (
    <div class="mini-progress" aria-hidden="true">
      <div style={{ transform: `scaleX(${ratio})` }} />
    </div>
  )
}

/**
 * The phone's player: one row above the bottom navigation with the track, like, lyrics, play/pause and next.
 * Tapping the track opens Now Playing (the seek bar, the other controls, the queue).
 */
export function MiniPlayer() {
  const track = current.value
  return (
    <section class="player-bar mini-player" aria-label="Player">
      {track !== undefined ? (
        <>
          <button
            type="button"
            id={OPEN_BUTTON_ID}
            class="mini-open"
            aria-haspopup="dialog"
            aria-expanded={nowPlayingOpen.value}
            onClick={openNowPlaying}
          >
            <Cover src={`/api/albums/${track.album_id}/cover`} alt="" size={44} kind="track" />
            <span class="titles">
              <span class="visually-hidden">Open Now Playing: </span>
              <span class="title" data-testid="now-playing-title">
                {track.title}
              </span>
              <span class="artists muted">{track.artist_name}</span>
            </span>
          </button>
          <LikeButton kind="track" id={track.id} label={track.title} />
          <LyricsButton />
          <button type="button" aria-label={playing.value ? "Pause" : "Play"} onClick={togglePlay} class="icon play">
            <Icon name={playing.value ? "pause" : "play"} />
          </button>
          <button type="button" aria-label="Next track" onClick={next} class="icon">
            <Icon name="next" />
          </button>
          <Progress />
        </>
      ) : (
        <>
          <span class="muted mini-idle">Nothing playing</span>
          <LyricsButton />
        </>
      )}
    </section>
  )
}

/**
 * Full-screen Now Playing on a phone: large cover, the track, seek, transport, shuffle/repeat, lyrics, and what
 * plays next. A modal sheet: the rest of the app is inert behind it; the close button, Escape and back close it.
 */
export function NowPlaying() {
  const open = nowPlayingOpen.value && isPhone.value
  const track = current.value
  const sheet = useRef<HTMLDivElement>(null)

  // Following a link inside (the album, an artist, the queue) leaves it; so does growing out of the phone layout.
  const path = pathname.value
  useEffect(() => {
    if (!nowPlayingOpen.peek()) return
    refocus = false
    nowPlayingOpen.value = false
  }, [path])
  useEffect(() => {
    if (!isPhone.value && nowPlayingOpen.peek()) nowPlayingOpen.value = false
  }, [isPhone.value])

  useEffect(() => {
    if (!open) return
    sheet.current?.focus({ preventScroll: true })
    // Behind a modal sheet nothing is reachable: not by Tab, not by a screen reader's virtual cursor.
    const behind = Array.from(
      document.querySelectorAll<HTMLElement>(".layout > :not(.now-playing-sheet):not(.lyrics-panel)"),
    )
    // (aria-hidden too: for assistive technology that predates inert.)
    for (const element of behind) {
      element.inert = true
      element.setAttribute("aria-hidden", "true")
    }
    document.documentElement.classList.add("sheet-open")
    const onKey = (event: KeyboardEvent) => {
      // The shortcuts' own Escape (the help, the lyrics) goes first: it marks the event handled.
      if (event.key !== "Escape" || event.defaultPrevented) return
      event.preventDefault()
      closeNowPlaying()
    }
    document.addEventListener("keydown", onKey)
    return () => {
      for (const element of behind) {
        element.inert = false
        element.removeAttribute("aria-hidden")
      }
      document.documentElement.classList.remove("sheet-open")
      document.removeEventListener("keydown", onKey)
      // Only now is the mini player focusable again.
      if (refocus) document.getElementById(OPEN_BUTTON_ID)?.focus()
    }
  }, [open])

  if (!open) return null
  const upcoming = queue.value.slice(index.value + 1, index.value + 1 + UP_NEXT)
  return (
    <div
      class="now-playing-sheet"
      role="dialog"
      aria-modal="true"
      aria-labelledby="now-playing-heading"
      tabIndex={-1}
      ref={sheet}
    >
      <header class="np-head">
        <button type="button" class="icon" aria-label="Close Now Playing" onClick={closeNowPlaying}>
          <Icon name="down" />
        </button>
        <h2 id="now-playing-heading">Now Playing</h2>
        <a href="/queue" class="icon-link" aria-label="Queue">
          <Icon name="playlist" />
        </a>
      </header>
      {track === undefined ? (
        <p class="muted">Nothing playing</p>
      ) : (
        <>
          <div class="np-cover">
            <Cover src={`/api/albums/${track.album_id}/cover`} alt={`Cover of ${track.album_title}`} size={320} />
          </div>
          <div class="np-track">
            <div class="np-titles">
              <a href={`/albums/${track.album_id}`} class="np-title">
                {track.title}
              </a>
              <span class="muted np-artists" data-testid="now-playing-artists">
                <TrackArtists track={track} />
              </span>
            </div>
            <LikeButton kind="track" id={track.id} label={track.title} />
          </div>
          <div class="seek np-seek">
            <SeekSlider />
            <span class="time" aria-hidden="true">
              {formatTime(position.value)}
            </span>
            <span class="time" aria-hidden="true">
              {formatTime(duration.value)}
            </span>
          </div>
          <TransportControls class="np-transport" />
          {/* Secondary controls: lyrics, and the speakers to cast to. */}
          <div class="np-extras">
            <button type="button" class="icon" aria-label="Lyrics" onClick={showLyrics}>
              <Icon name="lyrics" />
            </button>
            <CastButton />
          </div>
          <section class="np-next" aria-labelledby="np-next-heading">
            <h3 id="np-next-heading">Up next</h3>
            {upcoming.length === 0 ? (
              <p class="muted">Nothing after this track.</p>
            ) : (
              <ol>
                {upcoming.map((item, at) => (
                  <li key={`${item.id}-${at}`}>
                    <button type="button" onClick={() => playIndex(index.value + 1 + at)}>
                      <span class="t">{item.title}</span>
                      <span class="muted">{item.artist_name}</span>
                    </button>
                  </li>
                ))}
              </ol>
            )}
            <a href="/queue" class="button">
              Open the queue
            </a>
          </section>
        </>
      )}
    </div>
  )
}
