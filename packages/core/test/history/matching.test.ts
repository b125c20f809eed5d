import { describe, expect, it } from "@effect/vitest"
import { buildMatchIndex, type MatchCandidate, matchListen } from "../../src/index.js"

const track = (track_id: string, title: string, artists: Array<string>, more: Partial<MatchCandidate> = {}) =>
  ({
    track_id,
    title,
    artists,
    album_artist: artists[0] ?? null,
    album: "Album",
    mbid: null,
    duration_ms: 200_000,
    ...more,
  }) satisfies MatchCandidate

const query = (artist: string, title: string, album: string | null = null, recording_mbid: string | null = null) => ({
  artist,
  title,
  album,
  recording_mbid,
})

describe("matching imported listens (contract Listening history in and out)", () => {
  it("matching: the recording MBID first, then folded artist and title", () => {
    const index = buildMatchIndex([
      track("t1", "Sinner's Prayer", ["Beth Hart"], { mbid: "11111111-1111-1111-1111-111111111111" }),
      track("t2", "Don't Explain", ["Beth Hart"]),
    ])
    expect(matchListen(index, query("Someone", "Else", null, "11111111-1111-1111-1111-111111111111"))).toEqual({
      track_id: "t1",
      how: "mbid",
    })
    expect(matchListen(index, query("BETH HART", "dont explain"))).toEqual({ track_id: "t2", how: "exact_no_album" })
    expect(matchListen(index, query("Beth Hart", "Don't Explain", "Album"))).toEqual({ track_id: "t2", how: "exact" })
    expect(matchListen(index, query("Joe Bonamassa", "Don't Explain"))).toBeNull()
  })
})
