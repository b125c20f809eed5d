import { describe, expect, it } from "@effect/vitest"
import type { VanishedTrack } from "../../src/library/CatalogRepository.js"
import { MoveCandidates, matchMoves, type NewFile } from "../../src/library/scan/moves.js"

const vanished = (id: string, path: string, overrides: Partial<VanishedTrack> = {}): VanishedTrack => ({
  id,
  path,
  sizeBytes: 1_000,
  title: "Porch",
  album: "Field Recordings",
  artist: "Old Wire",
  trackNumber: 1,
  durationMs: 61_000,
  missing: false,
  ...overrides,
})

const found = (path: string, overrides: Partial<NewFile> = {}): NewFile => ({
  path,
  sizeBytes: 1_000,
  title: "Porch",
  album: "Field Recordings",
  artist: "Old Wire",
  trackNumber: 1,
  durationMs: 61_000,
  ...overrides,
})

describe("moves: which new file is a vanished track moved", () => {
  it("a new file with the same size and tags takes the vanished track's id", () => {
    expect(matchMoves([found("B/01.flac")], [vanished("t1", "A/01.flac")])).toEqual([{ id: "t1", path: "B/01.flac" }])
  })

  it("letter case of the tags does not matter; size, title, album, artist, track number and duration do", () => {
    const track = vanished("t1", "A/01.flac")
    expect(matchMoves([found("B/01.flac", { title: "PORCH", artist: "old wire" })], [track])).toHaveLength(1)
    for (const changed of [
      { sizeBytes: 1_001 },
      { title: "Porch (live)" },
      { album: "Other" },
      { artist: "New Wire" },
      { trackNumber: 2 },
      { durationMs: 61_001 },
    ]) {
      expect(matchMoves([found("B/01.flac", changed)], [track])).toEqual([])
    }
  })

  it("each vanished track is taken once; one vanished in this scan goes before one missing already", () => {
    const older = vanished("old", "A/01.flac", { missing: true })
    const now = vanished("now", "Z/01.flac")
    expect(matchMoves([found("B/01.flac"), found("C/01.flac")], [older, now])).toEqual([
      { id: "now", path: "B/01.flac" },
      { id: "old", path: "C/01.flac" },
    ])
    expect(matchMoves([found("B/01.flac"), found("C/01.flac")], [now])).toEqual([{ id: "now", path: "B/01.flac" }])
  })

  it("ids claimed by an earlier batch are not offered again", () => {
    const candidates = new MoveCandidates([vanished("t1", "A/01.flac")])
    const first = candidates.match([found("B/01.flac")])
    expect(first).toEqual([{ id: "t1", path: "B/01.flac" }])
    // A batch that failed claims nothing: the same match is offered again.
    expect(candidates.match([found("B/01.flac")])).toEqual(first)
    candidates.claim(first)
    expect(candidates.match([found("C/01.flac")])).toEqual([])
    expect(candidates.paths.has("A/01.flac")).toBe(true)
  })
})
