import { formatTime } from "../components/format.js"
import { Icon } from "../components/Icon.js"
import {
  current,
  cycleRepeat,
  duration,
  next,
  playing,
  position,
  previous,
  repeat,
  seek,
  shuffle,
  togglePlay,
  toggleShuffle,
} from "../state/player.js"

/**
 * Shuffle, previous, play/pause, next and repeat: the player bar's row and Now Playing's alike. The names are the
 * ones listeners and the e2e tests find them by ("Play"/"Pause", "Next track", "Repeat: off", …).
 */
export function TransportControls(props: { readonly class: string }) {
  return (
    <div class={props.class}>
      <button type="button" aria-label="Shuffle" aria-pressed={shuffle.value} onClick={toggleShuffle} class="icon">
        <Icon name="shuffle" />
      </button>
      <button type="button" aria-label="Previous track" onClick={previous} class="icon">
        <Icon name="previous" />
      </button>
      <button
        type="button"
        aria-label={playing.value ? "Pause" : "Play"}
        onClick={togglePlay}
        class="icon play"
        disabled={current.value === undefined}
      >
        <Icon name={playing.value ? "pause" : "play"} />
      </button>
      <button type="button" aria-label="Next track" onClick={next} class="icon">
        <Icon name="next" />
      </button>
      <button
        type="button"
        aria-label={`Repeat: ${repeat.value}`}
        aria-pressed={repeat.value !== "off"}
        onClick={cycleRepeat}
        class="icon"
      >
        <Icon name={repeat.value === "one" ? "repeatOne" : "repeat"} />
      </button>
    </div>
  )
}

/** The position slider (the times beside it are laid out by each player). */
export function SeekSlider() {
  return (
    <input
      type="range"
      aria-label="Seek"
      min={0}
      max={Math.max(duration.value, 0.1)}
      step={1}
      value={position.value}
      aria-valuetext={`${formatTime(position.value)} of ${formatTime(duration.value)}`}
      onInput={(event) => seek(Number((event.currentTarget as HTMLInputElement).value))}
      disabled={current.value === undefined}
    />
  )
}
