import { describe, expect, it } from "vitest"
import { listenedBetween, offlinePlayedMs, playEnd, SEEK_JUMP_SECONDS } from "../../src/state/playReport.js"

/** The web player's play-reporting rules: what counts as listened, and which event closes a play. */
const ID = "0b9f6c55-2a4e-4f57-9a1c-4a1c2f0e7d11"
const FOUR_MINUTES = 240_000

/** Listening measured over a run of position updates (seconds), as the player's timeupdate handler adds it up. */
const listenedOver = (positions: ReadonlyArray<number>) =>
  positions.slice(1).reduce((total, to, at) => total + listenedBetween(positions[at]!, to), 0)

describe("listening measured from position updates", () => {
  it("counts steady playback, a quarter second at a time", () => {
    expect(listenedBetween(10, 10.25)).toBe(250)
    expect(listenedOver([0, 0.25, 0.5, 0.75, 1])).toBe(1000)
  })

  it("counts a forward seek as no listening, then listening resumes from the new position", () => {
    expect(listenedBetween(5, 5 + SEEK_JUMP_SECONDS)).toBe(0)
    expect(listenedBetween(5, 120)).toBe(0)
    expect(listenedOver([0, 1, 2, 150, 151, 152])).toBe(4000)
  })

  it("counts a jump just under the seek threshold (a late update) as listening", () => {
    expect(listenedBetween(5, 6.9)).toBeCloseTo(1900)
  })

  it("counts a backward seek and a paused position as nothing", () => {
    expect(listenedBetween(60, 0)).toBe(0)
    expect(listenedBetween(60, 59.5)).toBe(0)
    expect(listenedBetween(60, 60)).toBe(0)
  })

  it("adds a replay after seeking back to the start to what was heard before", () => {
    const first = Array.from({ length: 11 }, (_, at) => at) // 0 → 10 s
    const again = Array.from({ length: 11 }, (_, at) => at) // back to 0, heard again
    expect(listenedOver([...first, ...again])).toBe(20_000)
  })
})

describe("the event that closes a play", () => {
  it("a track that ran to its end is play_ended with what was listened, even when it was short", () => {
    expect(playEnd(ID, "ended", 5_000, 239, FOUR_MINUTES)).toEqual({
      type: "play_ended",
      play_event_id: ID,
      duration_played_ms: 5_000,
    })
  })

  it("leaving early is play_skipped at the position while it is under 30 s and under half the track", () => {
    expect(playEnd(ID, "left", 12_400, 12.4, FOUR_MINUTES)).toEqual({
      type: "play_skipped",
      play_event_id: ID,
      position_ms: 12_400,
    })
    expect(playEnd(ID, "left", 29_999, 30, FOUR_MINUTES).type).toBe("play_skipped")
  })

  it("leaving after 30 s of a long track is a play, not a skip", () => {
    expect(playEnd(ID, "left", 30_000, 30, FOUR_MINUTES)).toEqual({
      type: "play_ended",
      play_event_id: ID,
      duration_played_ms: 30_000,
    })
  })

  it("leaving a short track after half of it is a play, before half a skip", () => {
    expect(playEnd(ID, "left", 25_000, 25, 50_000).type).toBe("play_ended")
    expect(playEnd(ID, "left", 20_000, 20, 50_000).type).toBe("play_skipped")
  })

  it("judges the skip on time listened, not the position a seek reached", () => {
    // Seeked to 3:00 at once and left 5 s later: 5 s heard, a skip, reported where it was left.
    expect(playEnd(ID, "left", 5_000, 185, FOUR_MINUTES)).toEqual({
      type: "play_skipped",
      play_event_id: ID,
      position_ms: 185_000,
    })
    // Heard 40 s, then seeked back to 0:02 and left: a play.
    expect(playEnd(ID, "left", 40_000, 2, FOUR_MINUTES).type).toBe("play_ended")
  })

  it("clamps what a replay listened to the track's length", () => {
    expect(playEnd(ID, "ended", 2.5 * FOUR_MINUTES, 240, FOUR_MINUTES)).toEqual({
      type: "play_ended",
      play_event_id: ID,
      duration_played_ms: FOUR_MINUTES,
    })
    expect(offlinePlayedMs(2.5 * FOUR_MINUTES, FOUR_MINUTES)).toBe(FOUR_MINUTES)
  })

  it("clamps a position past the end and rounds to whole milliseconds", () => {
    expect(playEnd(ID, "left", 1_000.4, 9.9996, 8_000)).toEqual({
      type: "play_skipped",
      play_event_id: ID,
      position_ms: 8_000,
    })
    expect(playEnd(ID, "ended", 1_234.6, 2, FOUR_MINUTES)).toMatchObject({ duration_played_ms: 1_235 })
    expect(offlinePlayedMs(-3, FOUR_MINUTES)).toBe(0)
  })

  it("a track of unknown (zero) length is never a skip and stores no listened time", () => {
    expect(playEnd(ID, "left", 12_000, 12, 0)).toEqual({
      type: "play_ended",
      play_event_id: ID,
      duration_played_ms: 0,
    })
    expect(playEnd(ID, "ended", 0, 0, 0)).toMatchObject({ type: "play_ended", duration_played_ms: 0 })
    expect(offlinePlayedMs(90_000, 0)).toBe(0)
  })

  it("leaving at once, before anything was heard, is a skip at the start", () => {
    expect(playEnd(ID, "left", 0, 0, FOUR_MINUTES)).toEqual({
      type: "play_skipped",
      play_event_id: ID,
      position_ms: 0,
    })
  })
})
