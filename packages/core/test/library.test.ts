import { describe, expect, it } from "@effect/vitest"
import {
  albumArtistOf,
  isAudioPath,
  pickSidecarCover,
  releaseDateOf,
  searchKeyOf,
  sortNameOf,
  VARIOUS_ARTISTS,
} from "../src/index.js"

const tags = (artist: string, albumArtist: string | null = null, compilation = false) => ({
  album: "A",
  artist,
  albumArtist,
  compilation,
})

describe("album rules (contract Library)", () => {
  it("the album artist wins over the track artist", () => {
    expect(albumArtistOf([tags("Guest", "Band"), tags("Band", "Band")])).toBe("Band")
    expect(albumArtistOf([tags("Solo"), tags("Solo")])).toBe("Solo")
  })

  it("a compilation flag or a Various Artists album artist makes one Various Artists album", () => {
    expect(albumArtistOf([tags("X", "X", true), tags("Y")])).toBe(VARIOUS_ARTISTS)
    expect(albumArtistOf([tags("X", "VA"), tags("Y", "various artists")])).toBe(VARIOUS_ARTISTS)
  })

  it("several track artists under no album artist are a compilation", () => {
    expect(albumArtistOf([tags("X"), tags("Y"), tags("X")])).toBe(VARIOUS_ARTISTS)
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
