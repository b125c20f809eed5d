import { CROSSFADE_MAX_SECONDS } from "../../state/playbackFormat.js"
import { appliedGain, crossfade, current, replayGainMode, setCrossfade, setReplayGainMode } from "../../state/player.js"
import { type AppliedGain, linearToDb, type ReplayGainMode } from "../../state/replayGain.js"

const CHOICES: ReadonlyArray<{ readonly mode: ReplayGainMode; readonly label: string; readonly help: string }> = [
  { mode: "off", label: "Off", help: "Every track plays at its own level." },
  { mode: "track", label: "Track", help: "Each track at the level of its track gain: loud and quiet tracks even out." },
  {
    mode: "album",
    label: "Album",
    help: "Each track at its album's gain: albums even out, the quiet and loud songs of one album stay as mastered.",
  },
  {
    mode: "auto",
    label: "Auto",
    help: "Album gain while an album plays in order from its page, track gain for everything else (shuffle, playlists, mixes).",
  },
]

const db = (value: number) => `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(2)} dB`

/** What the playing track gets, in words. */
const describe = (gain: AppliedGain) => {
  if (gain.mode === "off") return "ReplayGain is off: it plays at its own level."
  if (gain.kind === "none") return "It has no ReplayGain tags: it plays at its own level."
  const what =
    gain.kind === gain.mode ? `its ${gain.kind} gain` : `its ${gain.kind} gain (no ${gain.mode} gain is tagged)`
  const used = `${what}, ${db(gain.gainDb ?? 0)}`
  if (!gain.limited) return `Playing at ${used}.`
  const limit =
    gain.peak === null
      ? "0 dB, as its peak is unknown"
      : `${db(linearToDb(gain.scale))} so that its peak (${gain.peak}) never clips`
  return `Playing at ${used}, limited to ${limit}.`
}

/** The crossfade slider: 0 (off, gapless) to 12 s; albums always play gapless. */
function CrossfadeSetting() {
  const seconds = crossfade.value
  return (
    <fieldset class="choices">
      <legend>Crossfade</legend>
      <p class="muted" id="crossfade-help">
        Fades the end of a track into the next one. Never between two tracks of the same album: an album plays gapless,
        as mastered. The next track is always loaded ahead, so tracks follow without a gap. Kept in this browser.
      </p>
      <div class="crossfade-setting">
        <label for="crossfade">Crossfade length</label>
        <input
          id="crossfade"
          type="range"
          min={0}
          max={CROSSFADE_MAX_SECONDS}
          step={1}
          value={seconds}
          aria-describedby="crossfade-help"
          aria-valuetext={seconds === 0 ? "Off" : `${seconds} seconds`}
          onInput={(event) => setCrossfade(Number((event.target as HTMLInputElement).value))}
        />
        <output for="crossfade" data-testid="crossfade-value">
          {seconds === 0 ? "Off" : `${seconds} s`}
        </output>
      </div>
    </fieldset>
  )
}

/** The web player's playback settings, kept in this browser: ReplayGain and crossfade. */
export default function PlaybackPage() {
  const mode = replayGainMode.value
  const track = current.value
  const gain = appliedGain.value
  return (
    <section class="settings">
      <h1>Playback</h1>
      <fieldset class="choices">
        <legend>ReplayGain</legend>
        <p class="muted">
          Evens out loudness with the ReplayGain tags of your files. A track is never turned up past the point where its
          peak would clip, and never above its own level when its peak is unknown. Kept in this browser.
        </p>
        {CHOICES.map((choice) => (
          <label class="choice" key={choice.mode}>
            <input
              type="radio"
              name="replay-gain"
              value={choice.mode}
              checked={mode === choice.mode}
              onChange={() => setReplayGainMode(choice.mode)}
              aria-describedby={`replay-gain-${choice.mode}-help`}
            />
            <span>
              <span class="choice-label">{choice.label}</span>
              <span class="muted" id={`replay-gain-${choice.mode}-help`}>
                {choice.help}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      <CrossfadeSetting />
      <p aria-live="polite" data-testid="replay-gain-now">
        {track === undefined || gain === undefined ? (
          <span class="muted">Nothing is playing.</span>
        ) : (
          <>
            Now playing <strong>{track.title}</strong>
            {replayGainMode.value === "auto" ? ` (auto: ${gain.mode} gain)` : ""}. {describe(gain)}
          </>
        )}
      </p>
    </section>
  )
}
