import { describe, expect, it } from "vitest"
import {
  badTextReason,
  crossSiteRefusal,
  findBadJsonText,
  findBadUrlText,
  jsonNestsDeeperThan,
  MAX_JSON_DEPTH,
} from "../src/index.js"

describe("the text rule at the HTTP boundary (issue 29)", () => {
  it("NUL and unpaired surrogates are refused; paired surrogates (emoji) and accents are text", () => {
    expect(badTextReason("a\u0000b")).toContain("NUL")
    expect(badTextReason("x\ud800")).toContain("unpaired surrogate")
    expect(badTextReason("\udc00x")).toContain("unpaired surrogate")
    expect(badTextReason("Beyoncé 🎧 Sigur Rós")).toBeUndefined()
  })

  it("nesting is measured without parsing; brackets inside strings do not count", () => {
    expect(jsonNestsDeeperThan("[".repeat(20_000) + "]".repeat(20_000), MAX_JSON_DEPTH)).toBe(true)
    expect(jsonNestsDeeperThan(`{"a":[[1]],"b":"${"[".repeat(100)}"}`, MAX_JSON_DEPTH)).toBe(false)
    expect(jsonNestsDeeperThan(`{"a":"\\"[[[["}`, 2)).toBe(false)
    expect(jsonNestsDeeperThan("[[[", 2)).toBe(true)
  })

  it("a bad JSON string is named by its path; keys too", () => {
    expect(findBadJsonText({ name: "ok", tracks: [{ title: "x\u0000" }] })).toEqual({
      field: "tracks.0.title",
      reason: "must not contain a NUL character",
    })
    expect(findBadJsonText({ "k\u0000": 1 })?.field).toBe("body (a key)")
    expect(findBadJsonText("\u0000")?.field).toBe("body")
    expect(findBadJsonText({ a: [1, true, null, { b: "fine" }] })).toBeUndefined()
  })

  it("a URL's path segments and query values are decoded and checked; bad percent-encoding is named", () => {
    expect(findBadUrlText("/api/search?q=abc%00")).toEqual({ field: "q", reason: "must not contain a NUL character" })
    expect(findBadUrlText("/index.html%00.js")?.field).toBe("path")
    expect(findBadUrlText("/api/search?q=%ED%A0%80")?.reason).toContain("percent-encoded")
    expect(findBadUrlText("/api/search?q=%E0%A4%A")?.field).toBe("q")
    expect(findBadUrlText("/api/search?q=sigur+r%C3%B3s&limit=5")).toBeUndefined()
    expect(findBadUrlText("/rest/ping.view?u=a&p=enc:00&flag")).toBeUndefined()
  })
})

describe("cookie-authenticated state changes from another site (issue 29)", () => {
  const base = { method: "POST", secFetchSite: undefined, origin: undefined, hosts: ["music.example.com"] }
  it("Sec-Fetch-Site decides when a browser sends it: same-origin and none pass, same-site and cross-site do not", () => {
    expect(crossSiteRefusal({ ...base, secFetchSite: "same-origin" })).toBeUndefined()
    expect(crossSiteRefusal({ ...base, secFetchSite: "none" })).toBeUndefined()
    expect(crossSiteRefusal({ ...base, secFetchSite: "same-site" })).toContain("same-site")
    expect(crossSiteRefusal({ ...base, secFetchSite: "cross-site", origin: "https://music.example.com" })).toBeDefined()
  })
  it("without it, the Origin's host must be one the client used; no Origin is not a browser page", () => {
    expect(crossSiteRefusal({ ...base, origin: "https://music.example.com" })).toBeUndefined()
    expect(crossSiteRefusal({ ...base, origin: "https://MUSIC.example.com" })).toBeUndefined()
    expect(crossSiteRefusal({ ...base, origin: "https://evil.example" })).toContain("evil.example")
    expect(crossSiteRefusal({ ...base, origin: "null" })).toContain("opaque")
    expect(crossSiteRefusal(base)).toBeUndefined()
  })
  it("reads are never refused", () => {
    expect(crossSiteRefusal({ ...base, method: "GET", secFetchSite: "cross-site" })).toBeUndefined()
    expect(crossSiteRefusal({ ...base, method: "HEAD", origin: "https://evil.example" })).toBeUndefined()
  })
})
