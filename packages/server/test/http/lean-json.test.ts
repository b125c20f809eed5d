import { describe, expect, it } from "@effect/vitest"
import { AlbumDetail, AlbumPage, ArtistDetail, Home, SearchResult } from "@tonearm/core"
import { Arbitrary, FastCheck, Schema } from "effect"
import { leanJson } from "../../src/http/leanJson.js"

/**
 * The lean encoder of the hot read routes must answer byte for byte what the contract's encoding answers, for any
 * value of the type (random ones from the schema's own arbitrary: nulls, empty and long lists, odd strings, dates).
 */
const sameAsSchema = <A, I>(name: string, schema: Schema.Schema<A, I>) =>
  it(`lean JSON of ${name} is the contract's encoding of the same value`, () => {
    const lean = leanJson(schema).encode
    const encode = Schema.encodeSync(schema)
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(schema), (value) => {
        expect(JSON.stringify(lean(value))).toBe(JSON.stringify(encode(value)))
      }),
      { numRuns: 150 },
    )
  })

describe("lean JSON encoding", () => {
  sameAsSchema("an album page", AlbumPage)
  sameAsSchema("an album detail", AlbumDetail)
  sameAsSchema("an artist detail", ArtistDetail)
  sameAsSchema("search results", SearchResult)
  sameAsSchema("the home sections", Home)

  it("a kept answer is stringified once: the same object answers the same text, another object its own", () => {
    const Counted = Schema.Struct({ n: Schema.NumberFromString })
    const lean = leanJson(Counted)
    const kept = { n: 1 }
    const bodyOf = (value: { n: number }) => {
      const response = lean.respond(value)
      const body = response.body
      if (body._tag === "Uint8Array") return new TextDecoder().decode(body.body)
      return body._tag === "Raw" ? String(body.body) : ""
    }
    expect(bodyOf(kept)).toBe('{"n":"1"}')
    expect(lean.respond(kept).headers["content-type"]).toBe("application/json")
    // The kept text wins over a change the encoder would see: the answer is the object, never mutated in place.
    ;(kept as { n: number }).n = 2
    expect(bodyOf(kept)).toBe('{"n":"1"}')
    expect(bodyOf({ n: 2 })).toBe('{"n":"2"}')
  })

  it("a node the lean compiler does not know is encoded by the schema itself", () => {
    const Odd = Schema.Struct({
      n: Schema.NumberFromString,
      tags: Schema.Record({ key: Schema.String, value: Schema.Number }),
    })
    expect(leanJson(Odd).encode({ n: 5, tags: { a: 1 } })).toEqual({ n: "5", tags: { a: 1 } })
  })
})
