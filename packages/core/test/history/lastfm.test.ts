import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  LASTFM_PAGE_SIZE,
  lastfmErrorKind,
  lastfmNextCursor,
  lastfmPageParams,
  lastfmRecentTracks,
  lastfmStartCursor,
  lastfmUsername,
} from "../../src/index.js"

const MBID = "0f1e2d3c-4b5a-4968-8776-655443322110"

/** A scrobble as Last.fm serves it with extended=0 (numbers as strings, `#text` names). */
const scrobble = (uts: number, fields: { artist?: string; title?: string; album?: string; mbid?: string } = {}) => ({
  artist: { mbid: "", "#text": fields.artist ?? "Stereolab" },
  streamable: "0",
  image: [{ size: "small", "#text": "" }],
  mbid: fields.mbid ?? "",
  album: { mbid: "", "#text": fields.album ?? "Dots and Loops" },
  name: fields.title ?? "Brakhage",
  url: "https://www.last.fm/music/x",
  date: { uts: String(uts), "#text": "01 Jan 2020, 00:00" },
})

const page = (tracks: unknown, attr = { page: "1", totalPages: "3", total: "401", perPage: "200", user: "rj" }) => ({
  recenttracks: { track: tracks, "@attr": attr },
})

describe("lastfmRecentTracks", () => {
  it("maps a scrobble: date.uts is the start, mbid the recording, no ms played", () => {
    const answer = lastfmRecentTracks(page([scrobble(1_600_000_000, { mbid: MBID.toUpperCase() })]))
    expect(answer).toEqual({
      _tag: "page",
      page: 1,
      total_pages: 3,
      total: 401,
      listens: [
        {
          artist: "Stereolab",
          title: "Brakhage",
          album: "Dots and Loops",
          recording_mbid: MBID,
          started_at_ms: 1_600_000_000_000,
          ms_played: null,
        },
      ],
      incomplete: [],
      skipped: 0,
    })
  })

  it("skips the now-playing entry (it has no date yet)", () => {
    const playing = { ...scrobble(0), date: undefined, "@attr": { nowplaying: "true" } }
    const answer = lastfmRecentTracks(page([playing, scrobble(1_600_000_100), scrobble(1_600_000_000)]))
    expect(answer._tag === "page" && answer.listens.map((listen) => listen.started_at_ms)).toEqual([
      1_600_000_100_000, 1_600_000_000_000,
    ])
    expect(answer._tag === "page" && answer.skipped).toBe(1)
  })

  it("reads a single scrobble served as an object, and an empty history", () => {
    const one = lastfmRecentTracks(page(scrobble(1_600_000_000)))
    expect(one._tag === "page" && one.listens).toHaveLength(1)
    const none = lastfmRecentTracks(page([], { page: "1", totalPages: "0", total: "0", perPage: "200", user: "x" }))
    expect(none).toMatchObject({ _tag: "page", total_pages: 0, total: 0, listens: [] })
  })

  it("lists an entry without artist or title as incomplete, and an empty album as none", () => {
    const answer = lastfmRecentTracks(
      page([scrobble(1_600_000_000, { title: " " }), scrobble(1_600_000_001, { album: "" })]),
    )
    expect(answer).toMatchObject({
      incomplete: [{ artist: "Stereolab", title: "", album: "Dots and Loops", started_at_ms: 1_600_000_000_000 }],
      listens: [{ album: null, started_at_ms: 1_600_000_001_000 }],
    })
  })

  it("reads extended=1 artist names and numeric attributes too", () => {
    const extended = {
      ...scrobble(1_600_000_000),
      artist: { name: "Broadcast", url: "x" },
      date: { uts: 1_600_000_000 },
    }
    const answer = lastfmRecentTracks(page([extended], { page: 2, totalPages: 2, total: 201 } as never))
    expect(answer).toMatchObject({ page: 2, total_pages: 2, listens: [{ artist: "Broadcast" }] })
  })

  it("an error body is an error with its code; anything else is invalid", () => {
    expect(lastfmRecentTracks({ error: 6, message: "User not found", links: [] })).toEqual({
      _tag: "error",
      code: 6,
      message: "User not found",
    })
    expect(lastfmRecentTracks({ artists: [] })).toEqual({ _tag: "invalid" })
    expect(lastfmRecentTracks("<html>")).toEqual({ _tag: "invalid" })
  })

  it("never throws, whatever the body", () =>
    fc.assert(
      fc.property(fc.anything(), (body) => {
        expect(["page", "error", "invalid"]).toContain(lastfmRecentTracks(body)._tag)
      }),
    ))
})

describe("lastfmErrorKind", () => {
  it("6 is an unknown user, 17 a private one, 8/11/16/29 are retried, the rest fatal", () => {
    expect(lastfmErrorKind(6)).toBe("unknown_user")
    expect(lastfmErrorKind(17)).toBe("private")
    expect([8, 11, 16, 29].map(lastfmErrorKind)).toEqual(["retry", "retry", "retry", "retry"])
    expect([10, 26, 4].map(lastfmErrorKind)).toEqual(["fatal", "fatal", "fatal"])
  })
})

describe("the pull cursor", () => {
  it("starts at page 1 up to now, and resumes a stored cursor as it is", () => {
    expect(lastfmStartCursor(null, 1_700_000_000_999)).toEqual({ to: 1_700_000_000, page: 1, done: false })
    expect(lastfmStartCursor({ to: 5, page: 4, done: false }, 1_700_000_000_000)).toEqual({
      to: 5,
      page: 4,
      done: false,
    })
    expect(lastfmStartCursor({ page: "x" }, 2_000)).toEqual({ to: 2, page: 1, done: false })
  })

  it("walks pages 1..n then is done, keeping `to`", () => {
    let cursor = lastfmStartCursor(null, 1_000_000)
    const pages: Array<number> = []
    while (!cursor.done) {
      pages.push(cursor.page)
      cursor = lastfmNextCursor(cursor, 3)
    }
    expect(pages).toEqual([1, 2, 3])
    expect(cursor.to).toBe(1_000)
  })

  it("a history of no pages is done after the first answer", () => {
    expect(lastfmNextCursor({ to: 9, page: 1, done: false }, 0).done).toBe(true)
  })

  it("asks for the largest page, up to the fixed time, without extended data", () => {
    expect(lastfmPageParams("rj", { to: 77, page: 2, done: false })).toEqual({
      user: "rj",
      limit: String(LASTFM_PAGE_SIZE),
      page: "2",
      to: "77",
      extended: "0",
    })
  })
})

describe("lastfmUsername", () => {
  it("trims a name and refuses what cannot be one", () => {
    expect(lastfmUsername("  RJ_1-x ")).toBe("RJ_1-x")
    expect(lastfmUsername("")).toBeNull()
    expect(lastfmUsername("two words")).toBeNull()
    expect(lastfmUsername("a/b?c")).toBeNull()
  })
})
