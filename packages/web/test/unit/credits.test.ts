import { describe, expect, it } from "vitest"
import { creditPieces } from "../../src/components/credits.js"
import { activeLineIndex } from "../../src/state/lyricsFollow.js"

const alice = { id: "a", name: "Alice", role: "main" as const }
const bob = { id: "b", name: "Bob", role: "featured" as const }
const carol = { id: "c", name: "Carol", role: "main" as const }

/** Which parts of an artist line link where; `[name→id]` for a link. */
const render = (text: string, credits: Parameters<typeof creditPieces>[1]) =>
  creditPieces(text, credits)
    .map((piece) => (piece.credit === undefined ? piece.text : `[${piece.text}→${piece.credit.id}]`))
    .join("")

describe("credited artists as links", () => {
  it("credited artists are links: a featured guest links to their page", () => {
    expect(render("Alice feat. Bob", [alice, bob])).toBe("[Alice→a] feat. [Bob→b]")
    // The tagged spelling stays: ft., featuring, slashes.
    expect(render("Alice ft. Bob", [alice, bob])).toBe("[Alice→a] ft. [Bob→b]")
    expect(render("Alice / Carol feat. Bob", [alice, carol, bob])).toBe("[Alice→a] / [Carol→c] feat. [Bob→b]")
  })

  it("writes the names out when the text does not hold them in order (a multi-valued ARTISTS tag)", () => {
    expect(render("Alice and friends", [alice, carol, bob])).toBe("[Alice→a], [Carol→c] feat. [Bob→b]")
    expect(render("Bob feat. Alice", [alice, bob])).toBe("[Alice→a] feat. [Bob→b]")
  })

  it("matches whole names only", () => {
    const al = { id: "x", name: "Al", role: "main" as const }
    expect(render("Alice feat. Al", [al])).toBe("Alice feat. [Al→x]")
    expect(render("Alicia", [{ id: "x", name: "Alic" }])).toBe("[Alic→x]")
  })

  it("keeps the text around the names, and a name credited twice links twice", () => {
    expect(render("Alice (live)", [alice])).toBe("[Alice→a] (live)")
    expect(render("Alice feat. Alice", [alice, { ...alice, role: "featured" }])).toBe("[Alice→a] feat. [Alice→a]")
  })

  it("no credits: the text alone", () => {
    expect(render("Various Artists", [])).toBe("Various Artists")
    expect(creditPieces("", [])).toEqual([])
  })
})

describe("lyrics follow playback", () => {
  const lines = [
    { start_ms: 0, text: "one" },
    { start_ms: 2000, text: "two" },
    { start_ms: 4000, text: "three" },
  ]
  it("the current line is the last one that has started", () => {
    expect(activeLineIndex(lines, 0)).toBe(0)
    expect(activeLineIndex(lines, 1999)).toBe(0)
    expect(activeLineIndex(lines, 2000)).toBe(1)
    expect(activeLineIndex(lines, 60_000)).toBe(2)
    expect(activeLineIndex([{ start_ms: 500, text: "late" }], 100)).toBe(-1)
    expect(activeLineIndex([{ start_ms: null, text: "untimed" }], 100)).toBe(-1)
    expect(activeLineIndex([], 100)).toBe(-1)
  })
})
