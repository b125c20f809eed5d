import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { entityTags, ifNoneMatchHits } from "../src/index.js"

// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3): anything visible but a double quote, commas included.
const etagc = fc.oneof(
  fc.constant("!"),
  fc.integer({ min: 0x23, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)),
)
const opaque = fc.array(etagc, { maxLength: 12 }).map((chars) => `"${chars.join("")}"`)
const member = fc.tuple(fc.boolean(), opaque).map(([weak, tag]) => (weak ? `W/${tag}` : tag))
const separator = fc.constantFrom(",", ", ", " , ", ",\t", ",,")

describe("If-None-Match (RFC 9110 weak comparison)", () => {
  it("matches the exact tag, its weak form, and *", () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('"abc"', 'W/"abc"')).toBe(true)
    expect(ifNoneMatchHits("*", '"abc"')).toBe(true)
  })

  it("finds the tag anywhere in a list", () => {
    expect(ifNoneMatchHits('"x", W/"abc", "y"', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('"x","y"', '"abc"')).toBe(false)
    expect(ifNoneMatchHits('"x", *', '"abc"')).toBe(true)
  })

  it("misses when absent, empty, unquoted or different", () => {
    expect(ifNoneMatchHits(undefined, '"abc"')).toBe(false)
    expect(ifNoneMatchHits("", '"abc"')).toBe(false)
    expect(ifNoneMatchHits("abc", '"abc"')).toBe(false)
    expect(ifNoneMatchHits('"abcd"', '"abc"')).toBe(false)
    expect(ifNoneMatchHits('w/"abc"', '"abc"')).toBe(false)
  })

  it("a comma inside a quoted tag does not split it", () => {
    expect(entityTags('"a,b", W/"c"')).toEqual(['"a,b"', 'W/"c"'])
    expect(ifNoneMatchHits('"a,b"', '"a"')).toBe(false)
    expect(ifNoneMatchHits('"a,b"', '"a,b"')).toBe(true)
  })

  it("a list parses back into its members", () => {
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 5 }), separator, (members, sep) => {
        expect(entityTags(members.join(sep))).toEqual(members)
      }),
    )
  })

  it("a list hits exactly when one member equals the tag once W/ is dropped", () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 5 }), member, separator, (members, etag, sep) => {
        const strip = (tag: string) => tag.replace(/^W\//, "")
        const expected = members.some((tag) => strip(tag) === strip(etag))
        expect(ifNoneMatchHits(members.join(sep), etag)).toBe(expected)
      }),
    )
  })

  it("adding the tag (weak or strong) or * to any list makes it hit", () => {
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 5 }),
        opaque,
        fc.constantFrom("strong", "weak", "star"),
        fc.nat(),
        (members, etag, form, at) => {
          const added = form === "star" ? "*" : form === "weak" ? `W/${etag}` : etag
          const list = [...members]
          list.splice(at % (list.length + 1), 0, added)
          expect(ifNoneMatchHits(list.join(", "), etag)).toBe(true)
        },
      ),
    )
  })
})
