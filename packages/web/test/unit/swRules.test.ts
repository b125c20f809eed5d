import { describe, expect, it } from "vitest"
import { isAppPage, isStreamPath, rangeAnswer } from "../../src/sw/rules.js"

/** The service worker's pure rules (issue 25 item 3): how a downloaded track answers a media element's Range. */
describe("range answers from a downloaded track", () => {
  it("a media element's opening bytes=0- is a 206 of the whole body", () => {
    expect(rangeAnswer("bytes=0-", 1000)).toEqual({
      status: 206,
      start: 0,
      end: 999,
      headers: { "accept-ranges": "bytes", "content-range": "bytes 0-999/1000", "content-length": "1000" },
    })
  })

  it("a closed range is its slice, the end inclusive", () => {
    expect(rangeAnswer("bytes=100-199", 1000)).toMatchObject({
      status: 206,
      start: 100,
      end: 199,
      headers: { "content-range": "bytes 100-199/1000", "content-length": "100" },
    })
  })

  it("an end past the body is cut at the last byte", () => {
    expect(rangeAnswer("bytes=900-5000", 1000)).toMatchObject({ status: 206, start: 900, end: 999 })
  })

  it("a suffix range is the last bytes, the whole body when longer", () => {
    expect(rangeAnswer("bytes=-100", 1000)).toMatchObject({ status: 206, start: 900, end: 999 })
    expect(rangeAnswer("bytes=-5000", 1000)).toMatchObject({ status: 206, start: 0, end: 999 })
  })

  it("a range starting past the end, or an empty suffix, is 416 with the size", () => {
    expect(rangeAnswer("bytes=1000-", 1000)).toEqual({
      status: 416,
      headers: { "accept-ranges": "bytes", "content-range": "bytes */1000" },
    })
    expect(rangeAnswer("bytes=-0", 1000).status).toBe(416)
  })

  it("no Range, another unit, several ranges or a malformed one answer the whole body", () => {
    for (const header of [null, "items=0-1", "bytes=0-1,5-9", "bytes=abc", "bytes=-", "bytes=500-100"])
      expect(rangeAnswer(header, 1000)).toEqual({
        status: 200,
        headers: { "accept-ranges": "bytes", "content-length": "1000" },
      })
  })
})

describe("what the service worker answers", () => {
  it("a stream is a track's stream path, any format", () => {
    expect(isStreamPath("/api/tracks/0b7c3d2e-1111-4222-8333-444455556666/stream")).toBe(true)
    expect(isStreamPath("/api/tracks/x/stream/extra")).toBe(false)
    expect(isStreamPath("/api/albums/x")).toBe(false)
  })

  it("the server's own pages and the API are never the app shell", () => {
    expect(isAppPage("/")).toBe(true)
    expect(isAppPage("/albums/123")).toBe(true)
    expect(isAppPage("/apiary")).toBe(true)
    for (const path of ["/api/me", "/rest/ping.view", "/docs", "/healthz", "/forgot-password", "/reset-password/t"])
      expect(isAppPage(path)).toBe(false)
  })
})
