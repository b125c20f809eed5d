/**
 * ReplayGain as tagged (contract "Library model"): gains in dB relative to -18 LUFS, peaks as a linear ratio. Pure
 * parsing of the tag texts; the scanner reads the tags.
 */

/** A REPLAYGAIN_* text (`-6.54 dB`, `+1.2`, `0.988`, a decimal comma too): the number at its start, or null. */
export const replayGainNumberOf = (value: string | null): number | null => {
  const match = value === null ? null : /^\s*([+-]?\d+(?:[.,]\d+)?)/.exec(value)
  if (match === null) return null
  const number = Number(match[1]!.replace(",", "."))
  return Number.isFinite(number) ? number : null
}

/** Opus R128 gains are Q7.8 fixed point relative to -23 LUFS; ReplayGain's reference is -18 LUFS (5 dB louder). */
export const r128ToReplayGainDb = (value: string | null): number | null => {
  const q78 = value === null ? null : /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : null
  return q78 === null || !Number.isFinite(q78) ? null : Math.round((q78 / 256 + 5) * 100) / 100
}
