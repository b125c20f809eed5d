/**
 * Which line of synced lyrics is sung at a playback position: pure, unit-tested (test/lyricsFollow.test.ts).
 * The panel (LyricsPanel.tsx) highlights it and scrolls to follow it.
 */

/** A line as the API answers it: `start_ms` null in unsynced lyrics. */
export interface TimedLine {
  readonly start_ms: number | null
  readonly text: string
}

/**
 * The index of the last line that has started at `positionMs`, or -1 before the first one. Lines come sorted
 * by time (the server sorts them); an untimed line never becomes current.
 */
export const activeLineIndex = (lines: ReadonlyArray<TimedLine>, positionMs: number): number => {
  let found = -1
  for (const [index, line] of lines.entries()) {
    if (line.start_ms === null) continue
    if (line.start_ms > positionMs) break
    found = index
  }
  return found
}
