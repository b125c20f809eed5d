import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  coverArtId,
  decodeSubsonicPassword,
  deviceClassOfClient,
  escapeXmlAttribute,
  indexArtists,
  indexLetterOf,
  isSafeJsonpCallback,
  parseCoverArtId,
  protocolVersionFailure,
  subsonicTokenMatches,
  toXml,
} from "../src/index.js"

describe("Subsonic auth pieces", () => {
  it("token auth: t is md5(password + salt), any letter case", () => {
    const t = createHash("md5")
      .update("sesame" + "c19b2d")
      .digest("hex")
    expect(subsonicTokenMatches("sesame", "c19b2d", t)).toBe(true)
    expect(subsonicTokenMatches("sesame", "c19b2d", t.toUpperCase())).toBe(true)
    expect(subsonicTokenMatches("sesame", "other", t)).toBe(false)
    expect(subsonicTokenMatches("sesame", "c19b2d", "short")).toBe(false)
  })

  it("p=enc:<hex> is the hex-encoded password; a bad hex never matches", () => {
    expect(decodeSubsonicPassword("enc:736573616d65")).toBe("sesame")
    expect(decodeSubsonicPassword("sesame")).toBe("sesame")
    expect(decodeSubsonicPassword("enc:zz")).toBeUndefined()
    expect(decodeSubsonicPassword("enc:abc")).toBeUndefined()
    fc.assert(
      fc.property(fc.string(), (password) => {
        expect(decodeSubsonicPassword(`enc:${Buffer.from(password, "utf8").toString("hex")}`)).toBe(password)
      }),
    )
  })

  it("a JSONP callback is an identifier path, never code", () => {
    expect(isSafeJsonpCallback("cb")).toBe(true)
    expect(isSafeJsonpCallback("window.app.$cb_1")).toBe(true)
    for (const bad of ["alert(1)", "a;b", "", "1a", "a..b", "a b", "x</script>"])
      expect(isSafeJsonpCallback(bad)).toBe(false)
  })
})

describe("protocol version", () => {
  it("another major version is 20 (client older) or 30 (server older); 1.x and no v are accepted", () => {
    expect(protocolVersionFailure("1.16.1")).toBeUndefined()
    expect(protocolVersionFailure("1.2.0")).toBeUndefined()
    expect(protocolVersionFailure(undefined)).toBeUndefined()
    expect(protocolVersionFailure("junk")).toBeUndefined()
    expect(protocolVersionFailure("0.9.0")?.code).toBe(20)
    expect(protocolVersionFailure("2.0.0")?.code).toBe(30)
  })
})

describe("device class of a Subsonic client name", () => {
  it("known apps map to their device class, whole words, first match wins", () => {
    expect(deviceClassOfClient("DSub")).toBe("mobile")
    expect(deviceClassOfClient("Symfonium")).toBe("mobile")
    expect(deviceClassOfClient("Feishin")).toBe("desktop")
    expect(deviceClassOfClient("NavidromeUI")).toBe("web")
    expect(deviceClassOfClient("Symfonium (Android Auto)")).toBe("car")
    expect(deviceClassOfClient("Kodi")).toBe("tv")
    expect(deviceClassOfClient("Sonos")).toBe("speaker")
    expect(deviceClassOfClient("Amperfy iPad")).toBe("tablet")
    expect(deviceClassOfClient("Wear OS player")).toBe("watch")
  })

  it("any other name is other; no name is null; tv is not found inside a word", () => {
    expect(deviceClassOfClient("my-script")).toBe("other")
    expect(deviceClassOfClient("substv2")).toBe("other")
    expect(deviceClassOfClient("")).toBeNull()
    expect(deviceClassOfClient(undefined)).toBeNull()
  })
})

describe("cover-art ids", () => {
  it("al-, ar- and pl- name an album, an artist, a playlist; a bare id is either a song or an album", () => {
    const id = "6b1f7c62-0e1a-4f43-9d0b-3d1c2a9f7e11"
    expect(parseCoverArtId(coverArtId("album", id))).toEqual({ kind: "album", id })
    expect(parseCoverArtId(coverArtId("artist", id))).toEqual({ kind: "artist", id })
    expect(parseCoverArtId(coverArtId("playlist", id))).toEqual({ kind: "playlist", id })
    expect(parseCoverArtId(id)).toEqual({ kind: "any", id })
  })
})

describe("artist index", () => {
  it("groups under the first letter of the sort name, accents folded, anything else under # last", () => {
    expect(indexLetterOf("Über")).toBe("U")
    expect(indexLetterOf("日本語")).toBe("#")
    expect(indexLetterOf("2Pac")).toBe("#")
    const artist = (name: string) => ({ artist: { name, sort_name: name } as never, entry: name })
    expect(indexArtists([artist("beta"), artist("Alpha"), artist("1999"), artist("Bravo")])).toEqual([
      { name: "A", artist: ["Alpha"] },
      { name: "B", artist: ["beta", "Bravo"] },
      { name: "#", artist: ["1999"] },
    ])
  })
})

describe("Subsonic XML (the JSON↔XML mapping)", () => {
  it("scalars are attributes, arrays repeated elements, value is text, named keys text children", () => {
    const xml = toXml(
      "subsonic-response",
      {
        status: "ok",
        genres: { genre: [{ value: "Rock", songCount: 2, albumCount: 1 }] },
        artistInfo: { biography: "bio", similarArtist: [{ id: "a", name: "A" }] },
        ext: [{ name: "formPost", versions: [1, 2] }],
        empty: null,
      },
      { textChildren: { artistInfo: ["biography"] } },
    )
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><subsonic-response status="ok"><genres><genre songCount="2" albumCount="1">Rock</genre></genres><artistInfo><biography>bio</biography><similarArtist id="a" name="A"/></artistInfo><ext name="formPost"><versions>1</versions><versions>2</versions></ext></subsonic-response>',
    )
  })

  it("escapes markup and quotes, keeps line breaks in attributes, drops characters XML cannot carry", () => {
    expect(escapeXmlAttribute(`A & B <"c"> 'd'`)).toBe("A &amp; B &lt;&quot;c&quot;&gt; &apos;d&apos;")
    expect(escapeXmlAttribute("a\nb\tc")).toBe("a&#10;b&#9;c")
    expect(escapeXmlAttribute("bell\u0007 and \uD800 lone")).toBe("bell and  lone")
    expect(toXml("x", { title: "Tom & Jerry" })).toContain('title="Tom &amp; Jerry"')
  })

  it("any text round-trips through an attribute (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const escaped = escapeXmlAttribute(text)
        expect(escaped).not.toMatch(/[<>"]/)
        const decoded = escaped
          .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&quot;/g, '"')
          .replace(/&apos;/g, "'")
          .replace(/&amp;/g, "&")
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML drops
        expect(decoded).toBe(text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ""))
      }),
    )
  })
})
