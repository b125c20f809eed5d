import { describe, expect, it } from "@effect/vitest"
import {
  addressBytes,
  inProxyList,
  loginThrottleAddresses,
  parseProxyList,
  parseProxyRange,
  resolveClientAddress,
} from "../src/index.js"

const ranges = (text: string) => {
  const parsed = parseProxyList(text)
  if (!("ranges" in parsed)) throw new Error(`not a list: ${parsed.invalid}`)
  return parsed.ranges
}

describe("trusted proxy list (issue 29: TONEARM_TRUSTED_PROXIES)", () => {
  it("addresses and CIDR ranges of both families parse; anything else names the bad entry", () => {
    expect(ranges("10.0.0.1, 172.16.0.0/12 ::1 fd00::/8").map((range) => range.prefix)).toEqual([32, 12, 128, 8])
    expect(parseProxyList("10.0.0.1, nginx")).toEqual({ invalid: "nginx" })
    for (const bad of ["10.0.0.256", "10.0.0.0/33", "::1/129", "1::2::3", "10.0.0.0/8/1", "10.0.0", ":::"]) {
      expect(parseProxyRange(bad)).toBeUndefined()
    }
    expect(parseProxyList("")).toEqual({ ranges: [] })
  })

  it("IPv6 forms expand; an IPv4-mapped address is its IPv4 form", () => {
    expect(addressBytes("::1")).toEqual([...Array<number>(15).fill(0), 1])
    expect(addressBytes("2001:db8::")?.slice(0, 4)).toEqual([0x20, 0x01, 0x0d, 0xb8])
    expect(addressBytes("::ffff:192.0.2.1")).toEqual([192, 0, 2, 1])
    expect(addressBytes("[::1]")).toEqual(addressBytes("::1"))
  })

  it("a peer is trusted only inside a listed range", () => {
    const list = ranges("10.0.0.0/8, 192.168.1.5, fd00::/8")
    expect(inProxyList("10.200.3.4", list)).toBe(true)
    expect(inProxyList("::ffff:10.1.1.1", list)).toBe(true)
    expect(inProxyList("192.168.1.5", list)).toBe(true)
    expect(inProxyList("192.168.1.6", list)).toBe(false)
    expect(inProxyList("11.0.0.1", list)).toBe(false)
    expect(inProxyList("fd12::1", list)).toBe(true)
    expect(inProxyList("fe80::1", list)).toBe(false)
    expect(inProxyList("unknown", list)).toBe(false)
    expect(inProxyList("172.20.0.1", ranges("172.16.0.0/12"))).toBe(true)
    expect(inProxyList("172.32.0.1", ranges("172.16.0.0/12"))).toBe(false)
  })

  it("a chain from a peer outside the list is not believed, whatever the hop setting", () => {
    const forwardedChain = ["203.0.113.5"]
    expect(resolveClientAddress({ hops: 1, forwardedChain, socketPeer: "198.51.100.1", peerTrusted: false })).toBe(
      "198.51.100.1",
    )
    expect(resolveClientAddress({ hops: 1, forwardedChain, socketPeer: "10.0.0.1", peerTrusted: true })).toBe(
      "203.0.113.5",
    )
  })

  it("without a list the login throttle also counts the socket peer when the chain named someone else", () => {
    expect(
      loginThrottleAddresses({
        resolvedAddress: "203.0.113.5",
        socketPeer: "198.51.100.1",
        proxyListConfigured: false,
      }),
    ).toEqual(["203.0.113.5", "198.51.100.1"])
    expect(
      loginThrottleAddresses({ resolvedAddress: "203.0.113.5", socketPeer: "10.0.0.1", proxyListConfigured: true }),
    ).toEqual(["203.0.113.5"])
    expect(
      loginThrottleAddresses({
        resolvedAddress: "198.51.100.1",
        socketPeer: "198.51.100.1",
        proxyListConfigured: false,
      }),
    ).toEqual(["198.51.100.1"])
  })
})
