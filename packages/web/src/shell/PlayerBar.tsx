import { useEffect, useRef } from "preact/hooks"
import { TrackArtists } from "../components/ArtistLinks.js"
import { Cover } from "../components/Cover.js"
import { formatTime } from "../components/format.js"
import { Icon } from "../components/Icon.js"
import { LikeButton } from "../components/LikeButton.js"
import { current, duration, muted, position, setVolume, toggleMute, volume } from "../state/player.js"
import { CastButton } from "./CastButton.js"
import { LyricsButton } from "./LyricsPanel.js"
import { SeekSlider, TransportControls } from "./TransportControls.js"

/** The bar at the bottom: always mounted, so what plays survives every navigation. */
export function PlayerBar() {
  const track = current.value
  const bar = useRef<HTMLElement>(null)
  // Its height as --player-h, so what floats above it (the lyrics panel) ends where it starts.
  useEffect(() => {
    const element = bar.current
    if (element === null || typeof ResizeObserver === "undefined") return
    const observer = new ResizeObserver(() =>
      document.documentElement.style.setProperty("--player-h", `${element.getBoundingClientRect().height}px`),
    )
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return (
    <section class="player-bar" aria-label="Player" ref={bar}>
      <div class="now-playing">
        {track !== undefined ? (
          <>
            <Cover src={`/api/albums/${track.album_id}/cover`} alt="" size={48} kind="track" />
            <div class="titles">
              <a href={`/albums/${track.album_id}`} class="title" data-testid="now-playing-title">
                {track.title}
              </a>
              <span class="artists muted" data-testid="now-playing-artists">
                <TrackArtists track={track} />
              </span>
            </div>
            <LikeButton kind="track" id={track.id} label={track.title} />
          </>
        ) : (
          <span class="muted">Nothing playing</span>
        )}
      </div>
      <div class="transport">
        <TransportControls class="buttons" />
        <div class="seek">
          <span class="time" aria-hidden="true">
            {formatTime(position.value)}
          </span>
          <SeekSlider />
          <span class="time" aria-hidden="true">
            {formatTime(duration.value)}
          </span>
        </div>
      </div>
      <div class="volume">
        <button
          type="button"
          aria-label={muted.value ? "Unmute" : "Mute"}
          aria-pressed={muted.value}
          onClick={toggleMute}
          class="icon"
        >
          <Icon name={muted.value ? "mute" : "volume"} />
        </button>
        <input
          type="range"
          aria-label="Volume"
          min={0}
          max={1}
          step={0.05}
          value={volume.value}
          onInput={(event) => setVolume(Number((event.currentTarget as HTMLInputElement).value))}
        />
        <LyricsButton />
        <CastButton />
        <a href="/queue" class="button">
          Queue
        </a>
      </div>
    </section>
  )
}
