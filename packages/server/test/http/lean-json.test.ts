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

  it("a node the lean compiler does not know is encoded by the schema itself", () => {
    const Odd = Schema.Struct({
      n: Schema.NumberFromString,
      tags: Schema.Record({ key: Schema.String, value: Schema.Number }),
    })
    expect(leanJson(Odd).encode({ n: 5, tags: { a: 1 } })).toEqual({ n: "5", tags: { a: 1 } })
  })
})
