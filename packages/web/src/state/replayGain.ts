/**
 * ReplayGain in the web player (contract "Library model": ReplayGain; issue 31 item 7): which tagged gain a
 * track plays at, and how loud the audio element may be, without ever clipping. Pure: no DOM, no storage, so
 * the rule is unit-tested on its own (test/replayGain.test.ts); player.ts applies it.
 */

/** The listener's setting: `auto` is album gain when an album plays in order, else track gain. */
export const REPLAY_GAIN_MODES = ["off", "track", "album", "auto"] as const
export type ReplayGainMode = (typeof REPLAY_GAIN_MODES)[number]
/** What a track actually plays with once `auto` is decided. */
export type ResolvedReplayGainMode = Exclude<ReplayGainMode, "auto">

export const isReplayGainMode = (value: unknown): value is ReplayGainMode =>
  typeof value === "string" && (REPLAY_GAIN_MODES as ReadonlyArray<string>).includes(value)

/** A track's ReplayGain as the API answers it: each value null when untagged. */
export interface ReplayGainTags {
  readonly track_gain_db: number | null
  readonly track_peak: number | null
  readonly album_gain_db: number | null
  readonly album_peak: number | null
}

/** What plays: where the queue came from (`album:<id>`, …), whether shuffle reordered it, the track's album. */
export interface PlayContext {
  readonly source: string | undefined
  readonly shuffled: boolean
  readonly albumId: string
}

/**
 * `auto` → `album` when the track is played as part of its album in the album's order (the queue was started
 * from that album, `album:<id>`, and shuffle is off), else `track`. Other modes stand as they are.
 */
export const resolveReplayGainMode = (mode: ReplayGainMode, context: PlayContext): ResolvedReplayGainMode => {
  if (mode !== "auto") return mode
  return !context.shuffled && context.source === `album:${context.albumId}` ? "album" : "track"
}

/** What is applied to one track. */
export interface AppliedGain {
  /** The mode after `auto` was decided. */
  readonly mode: ResolvedReplayGainMode
  /** Which tagged gain is used: the mode's own, else the other one when only that is tagged; none: off or untagged. */
  readonly kind: "track" | "album" | "none"
  /** The tagged gain used, in dB (null with kind none). */
  readonly gainDb: number | null
  /** The peak that limits it (null: unknown, then the gain never goes above 0 dB). */
  readonly peak: number | null
  /** The linear factor to play at: 10^(gain/20), limited so that peak × scale ≤ 1 (or scale ≤ 1 with no peak). */
  readonly scale: number
  /** Whether the limit lowered the tagged gain. */
  readonly limited: boolean
}

const NONE = (mode: ResolvedReplayGainMode): AppliedGain => ({
  mode,
  kind: "none",
  gainDb: null,
  peak: null,
  scale: 1,
  limited: false,
})

const finite = (value: number | null): value is number => value !== null && Number.isFinite(value)

/** dB → linear amplitude. */
export const dbToLinear = (db: number) => 10 ** (db / 20)
/** Linear amplitude → dB (−Infinity for 0). */
export const linearToDb = (scale: number) => 20 * Math.log10(scale)

/**
 * The gain rule. `track` uses the track gain (the album gain when only that is tagged), `album` the album gain
 * (the track gain when only that is tagged). The peak is the chosen kind's, else the other kind's: the album
 * peak is at least the track's, and the track's is this track's own, so either bounds this track's samples. The
 * gain is limited so that peak × scale ≤ 1 (never clipping); when no peak is tagged it never goes above 0 dB.
 */
export const replayGainFor = (tags: ReplayGainTags, mode: ResolvedReplayGainMode): AppliedGain => {
  if (mode === "off") return NONE(mode)
  const preferAlbum = mode === "album"
  const first = preferAlbum
    ? { kind: "album" as const, gain: tags.album_gain_db, peak: tags.album_peak }
    : { kind: "track" as const, gain: tags.track_gain_db, peak: tags.track_peak }
  const second = preferAlbum
    ? { kind: "track" as const, gain: tags.track_gain_db, peak: tags.track_peak }
    : { kind: "album" as const, gain: tags.album_gain_db, peak: tags.album_peak }
  const chosen = finite(first.gain) ? first : finite(second.gain) ? second : undefined
  if (chosen === undefined || !finite(chosen.gain)) return NONE(mode)
  const other = chosen === first ? second : first
  const peakOf = (value: number | null) => (finite(value) && value > 0 ? value : null)
  const peak = peakOf(chosen.peak) ?? peakOf(other.peak)
  const wanted = dbToLinear(chosen.gain)
  const ceiling = peak === null ? 1 : 1 / peak
  return {
    mode,
    kind: chosen.kind,
    gainDb: chosen.gain,
    peak,
    scale: Math.min(wanted, ceiling),
    limited: wanted > ceiling,
  }
}

/**
 * The audio element's volume for the listener's volume (0–1) and a track's scale. An element cannot play
 * louder than 1, so a boost is applied only as far as the listener's volume leaves room for it; a cut always is.
 * Never above `volume × scale`, so never above the peak limit.
 */
export const elementVolume = (volume: number, scale: number): number => {
  const value = volume * scale
  if (!Number.isFinite(value) || value <= 0) return 0
  return Math.min(1, value)
}
