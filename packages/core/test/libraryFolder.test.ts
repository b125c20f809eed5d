import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  type AlbumFolderTracks,
  chooseArtistImages,
  HIDDEN_METADATA_NAMES,
  isHiddenMetadata,
  parseScanIgnore,
  pickArtistImage,
  scanIgnoreRule,
} from "../src/index.js"

describe("what a scan skips (issue 31, item 11)", () => {
  it("a folder whose name starts with a dot is not hidden metadata", () => {
    for (const name of [".38 Special", ".hack", ".01 Intro.mp3", ".Trash Talk", "._"]) {
      expect(isHiddenMetadata(name), name).toBe(name === "._")
    }
    expect(scanIgnoreRule([])(".38 Special/Wild-Eyed Southern Boys/01.flac")).toBe(false)
  })

  it(".DS_Store, ._ files, trash, .git, @eaDir, lost+found and the other hidden metadata are skipped, in any letter case", () => {
    for (const name of [
      ".DS_Store",
      "._01 Intro.mp3",
      "._cover.jpg",
      ".Trash",
      ".Trashes",
      ".Trash-1000",
      ".git",
      ".AppleDouble",
      ".Spotlight-V100",
      ".fseventsd",
      "@eaDir",
      "@EADIR",
      "lost+found",
      "#recycle",
      ".stversions",
      "$RECYCLE.BIN",
      "System Volume Information",
    ]) {
      expect(isHiddenMetadata(name), name).toBe(true)
    }
    for (const name of HIDDEN_METADATA_NAMES) expect(isHiddenMetadata(name.toUpperCase()), name).toBe(true)
  })

  it("the ignore list matches names at any depth and paths from the library folder, with * and ? wildcards", () => {
    const ignored = scanIgnoreRule(["Podcasts", "*.partial", "Audiobooks/Drafts", "/Inbox", "Take ?"])
    expect(ignored("Podcasts")).toBe(true)
    expect(ignored("Band/podcasts")).toBe(true)
    expect(ignored("Band/Album/01 Intro.mp3.partial")).toBe(true)
    expect(ignored("Audiobooks/Drafts")).toBe(true)
    expect(ignored("Audiobooks")).toBe(false)
    expect(ignored("Other/Audiobooks/Drafts")).toBe(false)
    expect(ignored("Inbox")).toBe(true)
    expect(ignored("Band/Inbox")).toBe(false)
    expect(ignored("Band/Take 1")).toBe(true)
    expect(ignored("Band/Take 12")).toBe(false)
    expect(ignored("Band/Album/01.mp3")).toBe(false)
    // A wildcard never crosses a folder boundary; the hidden metadata stays skipped whatever the list says.
    expect(scanIgnoreRule(["A*"])("Ab/c")).toBe(false)
    expect(scanIgnoreRule(["A*/c"])("Ab/c")).toBe(true)
    expect(scanIgnoreRule(["Podcasts"])("Band/.DS_Store")).toBe(true)
  })

  it("TONEARM_SCAN_IGNORE is a comma list or a JSON array; blanks are dropped", () => {
    expect(parseScanIgnore("")).toEqual(Either.right([]))
    expect(parseScanIgnore(" Podcasts , *.partial,, ")).toEqual(Either.right(["Podcasts", "*.partial"]))
    expect(parseScanIgnore('["Crosby, Stills & Nash", " "]')).toEqual(Either.right(["Crosby, Stills & Nash"]))
    expect(Either.isLeft(parseScanIgnore('["unterminated'))).toBe(true)
    expect(Either.isLeft(parseScanIgnore("[1, 2]"))).toBe(true)
  })
})

describe("local artist images (issue 31, item 8)", () => {
  it("artist.jpg, .jpeg, .png or .webp in any letter case is an artist image; jpg first", () => {
    expect(pickArtistImage(["01.flac", "cover.jpg", "Artist.PNG"])).toBe("Artist.PNG")
    expect(pickArtistImage(["artist.webp", "artist.jpg", "artist.png"])).toBe("artist.jpg")
    expect(pickArtistImage(["artists.jpg", "artist.gif", "my artist.jpg", "artist"])).toBeUndefined()
  })

  const tally = (artistId: string, albumFolder: string, tracks = 10): AlbumFolderTracks => ({
    artistId,
    albumFolder,
    tracks,
  })

  it("artist.jpg in the artist folder becomes the image of the album artist of the albums in it", () => {
    const images = new Map([["Band", "Band/artist.jpg"]])
    expect(chooseArtistImages([tally("band", "Band/First"), tally("band", "Band/Second")], images)).toEqual(
      new Map([["band", "Band/artist.jpg"]]),
    )
  })

  it("an artist image in the album folder itself counts; one in the artist folder goes first", () => {
    const inAlbum = new Map([["Band/First", "Band/First/artist.png"]])
    expect(chooseArtistImages([tally("band", "Band/First")], inAlbum)).toEqual(
      new Map([["band", "Band/First/artist.png"]]),
    )
    const both = new Map([...inAlbum, ["Band", "Band/artist.jpg"]])
    expect(chooseArtistImages([tally("band", "Band/First")], both)).toEqual(new Map([["band", "Band/artist.jpg"]]))
  })

  it("the library folder is nobody's artist folder", () => {
    const images = new Map([["", "artist.jpg"]])
    expect(chooseArtistImages([tally("band", "First"), tally("loose", "")], images)).toEqual(new Map())
  })

  it("an image serves the album artist with the most tracks under it, so a collaboration does not take it", () => {
    const images = new Map([["Band", "Band/artist.jpg"]])
    const chosen = chooseArtistImages(
      [tally("band", "Band/First", 12), tally("band", "Band/Second", 9), tally("band-and-guest", "Band/Duets", 11)],
      images,
    )
    expect(chosen).toEqual(new Map([["band", "Band/artist.jpg"]]))
  })

  it("an artist with images in several folders takes the one serving most of its tracks, then the first path", () => {
    const images = new Map([
      ["A/Band", "A/Band/artist.jpg"],
      ["B/Band", "B/Band/artist.jpg"],
    ])
    expect(chooseArtistImages([tally("band", "A/Band/One", 3), tally("band", "B/Band/Two", 5)], images)).toEqual(
      new Map([["band", "B/Band/artist.jpg"]]),
    )
    expect(chooseArtistImages([tally("band", "A/Band/One", 5), tally("band", "B/Band/Two", 5)], images)).toEqual(
      new Map([["band", "A/Band/artist.jpg"]]),
    )
  })
})
