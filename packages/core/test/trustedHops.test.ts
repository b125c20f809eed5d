import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  addressWithoutHops,
  DEFAULT_TRUSTED_HOPS,
  hopsFromSetting,
  normalizeSocketPeer,
  parseForwardedChain,
  resolveClientAddress,
} from "../src/index.js"

describe("trusted-hop model (spec Authentication 5)", () => {
  const chain = ["203.0.113.5", "10.0.0.1", "10.0.0.2"]

  it("hops 0 uses the socket peer and ignores X-Forwarded-For", () => {
    expect(resolveClientAddress({ hops: 0, forwardedChain: chain, socketPeer: "192.0.2.9" })).toBe("192.0.2.9")
  })

  it("hops n takes the entry at index (length − n) of the chain", () => {
    expect(resolveClientAddress({ hops: 1, forwardedChain: chain, socketPeer: "p" })).toBe("10.0.0.2")
    expect(resolveClientAddress({ hops: 2, forwardedChain: chain, socketPeer: "p" })).toBe("10.0.0.1")
    expect(resolveClientAddress({ hops: 3, forwardedChain: chain, socketPeer: "p" })).toBe("203.0.113.5")
  })

  it("a chain shorter than hops falls back to the socket peer", () => {
    expect(resolveClientAddress({ hops: 4, forwardedChain: chain, socketPeer: "p" })).toBe("p")
    expect(resolveClientAddress({ hops: 1, forwardedChain: [], socketPeer: "p" })).toBe("p")
  })

  it("hops larger than the real proxy count lets a visitor choose their own shown address", () => {
    // One real proxy appends the visitor's address; the visitor forged the first entry.
    expect(resolveClientAddress({ hops: 2, forwardedChain: ["6.6.6.6", "198.51.100.1"], socketPeer: "10.0.0.1" })).toBe(
      "6.6.6.6",
    )
  })

  it("the forwarded chain is split on commas, trimmed, and empty entries dropped; repeated headers join", () => {
    expect(parseForwardedChain(" a , b,,c ")).toEqual(["a", "b", "c"])
    expect(parseForwardedChain(["a, b", "c"])).toEqual(["a", "b", "c"])
    expect(parseForwardedChain(undefined)).toEqual([])
    expect(parseForwardedChain("")).toEqual([])
  })

  it("IPv4-mapped IPv6 socket peers are shown in IPv4 form", () => {
    expect(normalizeSocketPeer("::ffff:127.0.0.1")).toBe("127.0.0.1")
    expect(normalizeSocketPeer("::1")).toBe("::1")
    expect(normalizeSocketPeer(undefined)).toBe("unknown")
  })

  it("an unreadable or malformed stored setting yields the default of 1; 0 is allowed", () => {
    expect(DEFAULT_TRUSTED_HOPS).toBe(1)
    expect(hopsFromSetting(0)).toBe(0)
    expect(hopsFromSetting(3)).toBe(3)
    for (const bad of ["2", -1, 11, 1.5, null, undefined, {}]) expect(hopsFromSetting(bad)).toBe(1)
  })

  it("the resolved address is always the socket peer or an entry of the chain", () => {
    fc.assert(
      fc.property(fc.array(fc.ipV4(), { maxLength: 6 }), fc.integer({ min: 0, max: 10 }), (entries, hops) => {
        const resolved = resolveClientAddress({ hops, forwardedChain: entries, socketPeer: "peer" })
        if (hops === 0 || hops > entries.length) expect(resolved).toBe("peer")
        else expect(resolved).toBe(entries[entries.length - hops])
      }),
    )
  })

  it("with no forwarded chain the address is the socket peer whatever the hops, so the setting need not be read", () => {
    fc.assert(
      fc.property(fc.array(fc.ipV4(), { maxLength: 3 }), fc.integer({ min: 0, max: 10 }), (entries, hops) => {
        const known = addressWithoutHops({ forwardedChain: entries, socketPeer: "peer" })
        if (entries.length > 0) expect(known).toBeUndefined()
        else expect(known).toBe(resolveClientAddress({ hops, forwardedChain: entries, socketPeer: "peer" }))
      }),
    )
  })
})
