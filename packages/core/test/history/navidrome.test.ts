import { describe, expect, it } from "@effect/vitest"
import {
  artistKeyOf,
  commonFolderOf,
  isAbsoluteNavidromePath,
  libraryHolding,
  libraryRelativePath,
  NAVIDROME_MAX_PLAYS_PER_TRACK,
  NAVIDROME_PLAY_SPACING_MS,
  parseNavidromeTime,
  preferredLibrary,
  sharedFolderTail,
  spreadPlays,
} from "../../src/history/navidrome.js"

describe("Navidrome import rules", () => {
  it("reads the time formats Navidrome's SQLite holds, UTC when no zone is given", () => {
    const at = Date.UTC(2024, 2, 10, 12, 0, 0)
    expect(parseNavidromeTime("2024-03-10 12:00:00")).toBe(at)
    expect(parseNavidromeTime("2024-03-10 12:00:00+00:00")).toBe(at)
    expect(parseNavidromeTime("2024-03-10T12:00:00Z")).toBe(at)
    expect(parseNavidromeTime("2024-03-10 12:00:00.123456789+00:00")).toBe(at + 123)
    expect(parseNavidromeTime("2024-03-10 14:00:00+02:00")).toBe(at)
    expect(parseNavidromeTime("2024-03-10T07:30:00-0430")).toBe(at)
    expect(parseNavidromeTime("2024-03-10 12:00:00 +0000 UTC")).toBe(at)
    for (const none of [null, undefined, "", "0000-00-00 00:00:00", "yesterday"])
      expect(parseNavidromeTime(none)).toBeNull()
  })

  it("spreads a play count back from the last play over the time since the file was added, whole seconds", () => {
    const last = Date.UTC(2024, 2, 10, 12, 0, 0, 500)
    const added = Date.UTC(2024, 0, 1)
    const times = spreadPlays({ playCount: 3, lastPlayedMs: last, addedMs: added, trackDurationMs: 200_000 })
    expect(times).toHaveLength(3)
    expect(times[2]).toBe(Date.UTC(2024, 2, 10, 12, 0, 0))
    const step = times[2]! - times[1]!
    expect(times[1]! - times[0]!).toBe(step)
    expect(step % 1000).toBe(0)
    // Inside (added, last]: nothing before the file existed.
    expect(times[0]!).toBeGreaterThan(added)
    expect(step).toBeGreaterThanOrEqual(Math.floor((times[2]! - added) / 3 / 1000) * 1000)
  })

  it("spaces plays a day apart without an added time, never closer than the track's length, capped", () => {
    const last = Date.UTC(2024, 5, 1)
    expect(spreadPlays({ playCount: 2, lastPlayedMs: last, addedMs: null, trackDurationMs: 1000 })).toEqual([
      last - NAVIDROME_PLAY_SPACING_MS,
      last,
    ])
    // Added a minute before 10 plays of a 3-minute track: 3 minutes apart, not 6 seconds.
    const tight = spreadPlays({ playCount: 10, lastPlayedMs: last, addedMs: last - 60_000, trackDurationMs: 179_500 })
    expect(tight[1]! - tight[0]!).toBe(180_000)
    expect(spreadPlays({ playCount: 0, lastPlayedMs: last, addedMs: null, trackDurationMs: 1 })).toEqual([])
    expect(spreadPlays({ playCount: 4, lastPlayedMs: null, addedMs: null, trackDurationMs: 1 })).toEqual([])
    expect(spreadPlays({ playCount: 1e9, lastPlayedMs: last, addedMs: 0, trackDurationMs: 1 })).toHaveLength(
      NAVIDROME_MAX_PLAYS_PER_TRACK,
    )
  })

  it("makes paths relative to the library: its path, else the common folder, else as stored", () => {
    expect(libraryRelativePath("/srv/music/A/B/01.mp3", ["/srv/music"])).toBe("A/B/01.mp3")
    expect(libraryRelativePath("/srv/music/A/B/01.mp3", ["/srv/music/"])).toBe("A/B/01.mp3")
    expect(libraryRelativePath("A/B/01.mp3", ["/srv/music"])).toBe("A/B/01.mp3")
    expect(libraryRelativePath("C:\\Music\\A\\01.mp3", ["C:\\Music"])).toBe("A/01.mp3")
    expect(libraryRelativePath("/old/root/A/01.mp3", ["/srv/music"], "/old/root/")).toBe("A/01.mp3")
    expect(commonFolderOf(["/old/root/A/B/1.mp3", "/old/root/C/2.mp3", "/old/root/A/3.mp3"])).toBe("/old/root/")
    expect(commonFolderOf(["A/1.mp3", "/x/2.mp3"])).toBe("")
    expect(commonFolderOf(["/a/1.mp3", "/b/2.mp3"])).toBe("")
  })

  it("compares artists folded, with or without a leading The", () => {
    expect(artistKeyOf("The Velvet Ferns")).toBe(artistKeyOf("velvet ferns"))
    expect(artistKeyOf("Zoë Müller")).toBe(artistKeyOf("Zoe Muller"))
    expect(artistKeyOf("The")).toBe("the")
  })

  const libraries = [
    { id: 1, folder: "/srv/music" },
    { id: 2, folder: "/srv/partner/" },
    { id: 3, folder: "/srv/music/audiobooks" },
  ]

  it("places a file in the library whose folder holds it, the deepest folder first", () => {
    expect(libraryHolding("/srv/partner/A/B/01.flac", libraries)).toEqual({ libraryId: 2, relative: "A/B/01.flac" })
    expect(libraryHolding("/srv/music/audiobooks/X/1.mp3", libraries)).toEqual({ libraryId: 3, relative: "X/1.mp3" })
    expect(libraryHolding("/srv/music/A/01.flac", libraries)).toEqual({ libraryId: 1, relative: "A/01.flac" })
    // A folder name that merely starts the same is another folder.
    expect(libraryHolding("/srv/musicals/A/01.flac", libraries)).toBeUndefined()
    expect(libraryHolding("/music/A/01.flac", libraries)).toBeUndefined()
    expect(libraryHolding("C:\\Music\\A\\01.flac", [{ id: 1, folder: "C:\\Music" }])).toEqual({
      libraryId: 1,
      relative: "A/01.flac",
    })
    expect(isAbsoluteNavidromePath("/music/a.flac")).toBe(true)
    expect(isAbsoluteNavidromePath("C:\\Music\\a.flac")).toBe(true)
    expect(isAbsoluteNavidromePath("Artist/a.flac")).toBe(false)
  })

  it("a file in several libraries at the same path: where its Navidrome library's other files were, else the folder that looks alike, else the first", () => {
    expect(sharedFolderTail("/music", "/srv/music/")).toBe(1)
    expect(sharedFolderTail("/data/partner", "/srv/music")).toBe(0)
    // Votes win over folder names.
    expect(
      preferredLibrary(
        [1, 2],
        new Map([
          [2, 5],
          [1, 1],
        ]),
        "/music",
        libraries,
      ),
    ).toBe(2)
    // No votes: the folder whose trailing names match Navidrome's (`/partner` mounted at `/srv/partner`).
    expect(preferredLibrary([1, 2], undefined, "/partner", libraries)).toBe(2)
    expect(preferredLibrary([2, 1], new Map(), "/music", libraries)).toBe(1)
    // Nothing to go by: the lowest library id.
    expect(preferredLibrary([2, 1], undefined, "/elsewhere", libraries)).toBe(1)
    expect(preferredLibrary([3, 2], undefined, undefined, libraries)).toBe(2)
  })
})
