import { describe, expect, it } from "@effect/vitest"
import {
  albumArtistsOf,
  creditsOf,
  displayOf,
  isAudioPath,
  pickSidecarCover,
  r128ToReplayGainDb,
  releaseDateOf,
  replayGainNumberOf,
  searchKeyOf,
  sortNameOf,
  sortNameWith,
  splitArtistText,
  VARIOUS_ARTISTS,
} from "../src/index.js"

const file = (artist: string, albumArtist: string | null = null, compilation = false) => ({
  credits: splitArtistText(artist),
  albumArtists: albumArtist === null ? [] : splitArtistText(albumArtist),
  albumArtistText: albumArtist,
  compilation,
})

describe("album rules (contract Library)", () => {
  it("album artist rule: the album-artist tag wins over the track artists", () => {
    expect(albumArtistsOf([file("Guest", "Band"), file("Band", "Band")]).names).toEqual(["Band"])
    expect(albumArtistsOf([file("Solo"), file("Solo")])).toEqual({
      names: ["Solo"],
      display: "Solo",
      compilation: false,
    })
  })

  it("album artist rule: a compilation flag or a Various Artists album artist makes one Various Artists album", () => {
    expect(albumArtistsOf([file("X", null, true), file("Y")]).names).toEqual([VARIOUS_ARTISTS])
    expect(albumArtistsOf([file("X", "VA"), file("Y", "various artists")])).toEqual({
      names: [VARIOUS_ARTISTS],
      display: VARIOUS_ARTISTS,
      compilation: true,
    })
  })

  it("album artist rule: untagged, the main artist on at least half the tracks is the album artist", () => {
    // One featured guest never turns an artist's own album into a compilation.
    expect(albumArtistsOf([file("Band feat. Guest"), file("Band"), file("Band")]).names).toEqual(["Band"])
    expect(albumArtistsOf([file("X"), file("Y"), file("X"), file("Y")]).names).toEqual(["X"])
  })

  it("album artist rule: untagged, no main artist on half the tracks is Various Artists", () => {
    expect(albumArtistsOf([file("X"), file("Y"), file("Z")]).names).toEqual([VARIOUS_ARTISTS])
  })

  it("a full date, a month, a year or a bare year number become release_date and year; nothing is undated", () => {
    expect(releaseDateOf("1997-09-22", 1997)).toEqual({ releaseDate: "1997-09-22", year: 1997 })
    expect(releaseDateOf("1997-9", null)).toEqual({ releaseDate: "1997-09-01", year: 1997 })
    expect(releaseDateOf("1997", null)).toEqual({ releaseDate: "1997-01-01", year: 1997 })
    expect(releaseDateOf(null, 1984)).toEqual({ releaseDate: "1984-01-01", year: 1984 })
    expect(releaseDateOf("2004-03-01T00:00:00Z", null)).toEqual({ releaseDate: "2004-03-01", year: 2004 })
    expect(releaseDateOf(null, null)).toEqual({ releaseDate: null, year: 0 })
    expect(releaseDateOf("0000", 0)).toEqual({ releaseDate: null, year: 0 })
    expect(releaseDateOf("unknown", null)).toEqual({ releaseDate: null, year: 0 })
  })

  it("sort names move a leading article; search keys drop case and accents", () => {
    expect(sortNameOf("The Beatles")).toBe("Beatles, The")
    expect(sortNameOf("Theory")).toBe("Theory")
    expect(searchKeyOf("  Björk   Guðmundsdóttir ")).toBe("bjork gudmundsdottir")
    expect(searchKeyOf("Café")).toBe(searchKeyOf("CAFE"))
  })
})

describe("indexed files and sidecar covers", () => {
  it("indexes the seven extensions in any letter case", () => {
    for (const name of ["a.mp3", "b.M4A", "c.Flac", "d.ogg", "e.OPUS", "f.aac", "g.WAV"])
      expect(isAudioPath(name)).toBe(true)
    for (const name of ["a.mp4", "b.txt", "c.cue", "mp3", "d.mp3.part"]) expect(isAudioPath(name)).toBe(false)
  })

  it("prefers cover over folder over front, jpg over png over webp, in any letter case", () => {
    expect(pickSidecarCover(["front.jpg", "folder.png", "Cover.WEBP"])).toBe("Cover.WEBP")
    expect(pickSidecarCover(["folder.png", "front.jpg"])).toBe("folder.png")
    expect(pickSidecarCover(["cover.png", "COVER.JPG"])).toBe("COVER.JPG")
    expect(pickSidecarCover(["scan.jpg", "back.jpg", "cover.gif"])).toBeUndefined()
  })
})

describe("artist credits (contract Library model)", () => {
  it("artist credits: feat., ft. and featuring credit the names after them as featured", () => {
    expect(splitArtistText("Alice feat. Bob")).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
    ])
    expect(splitArtistText("Alice FT. Bob")).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
    ])
    expect(splitArtistText("Alice featuring Bob; Carol")).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
      { name: "Carol", role: "featured" },
    ])
  })

  it("artist credits: ' / ' and '; ' separate main artists; AC/DC, &, x and vs. stay one name", () => {
    expect(splitArtistText("Alice / Bob; Carol").map((c) => c.name)).toEqual(["Alice", "Bob", "Carol"])
    for (const one of ["AC/DC", "Simon & Garfunkel", "Holy Soldier vs. Øystein Petrov", "Alice x Bob"]) {
      expect(splitArtistText(one)).toEqual([{ name: one, role: "main" }])
    }
  })

  it("artist credits: the separator list is a setting", () => {
    expect(splitArtistText("Alice & Bob", [" & "]).map((c) => c.name)).toEqual(["Alice", "Bob"])
    // Each list is its own (the pattern made for one list is never used for another).
    expect(splitArtistText("Alice & Bob", [" x "]).map((c) => c.name)).toEqual(["Alice & Bob"])
    expect(splitArtistText("Alice & Bob", ["   "]).map((c) => c.name)).toEqual(["Alice & Bob"])
    expect(splitArtistText("Alice feat. Bob", [])).toEqual([{ name: "Alice feat. Bob", role: "main" }])
  })

  it("artist credits: padding is trimmed and a name credited twice is one credit", () => {
    expect(splitArtistText("  Alice   feat. Bob  feat. alice ")).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
    ])
  })

  it("artist credits: the multi-valued ARTISTS tag wins; the display text still marks who is featured", () => {
    expect(creditsOf({ names: ["Alice", "Bob"], texts: ["Alice feat. Bob"] })).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
    ])
    expect(creditsOf({ names: [], texts: ["Holy Soldier", "Sinnero"] }).map((c) => c.name)).toEqual([
      "Holy Soldier",
      "Sinnero",
    ])
    expect(displayOf(creditsOf({ names: ["A", "B", "C"], texts: ["A, B feat. C"] }))).toBe("A, B feat. C")
  })

  it("sort names: a sort tag wins; else a leading article from the list moves to the end", () => {
    expect(sortNameWith("The Beatles", "Beatles")).toBe("Beatles")
    expect(sortNameWith("Los Lobos", null)).toBe("Lobos, Los")
    expect(sortNameWith("The Beatles", null, [])).toBe("The Beatles")
    expect(sortNameWith("Die Toten Hosen", null, ["Die"])).toBe("Toten Hosen, Die")
    expect(sortNameWith("The", null)).toBe("The")
  })
})

describe("replay gain texts (contract Library model)", () => {
  it("replay gain: the number at the start of a tag text; Opus R128 Q7.8 moved to the -18 LUFS reference", () => {
    expect(replayGainNumberOf("-6.54 dB")).toBe(-6.54)
    expect(replayGainNumberOf("+1,5 dB")).toBe(1.5)
    expect(replayGainNumberOf("loud")).toBeNull()
    expect(r128ToReplayGainDb("-2560")).toBe(-5)
    expect(r128ToReplayGainDb("-6.5")).toBeNull()
  })
})
