import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  SEARCH_CLOSEST_MIN_LETTERS,
  SEARCH_DOCUMENT_MAX_BYTES,
  searchDocumentMaker,
  searchDocumentOf,
  searchFieldsOf,
  searchKeyOf,
  searchMatches,
  searchQueryOf,
  searchTierOf,
  searchWantsClosest,
  searchWordsOf,
} from "../src/index.js"

/** Does `query` find an item with these fields (the rule the database applies to the stored document)? */
const finds = (query: string, fields: ReadonlyArray<string>) =>
  searchMatches(searchQueryOf(query), searchDocumentOf(fields).words)
const tier = (query: string, fields: ReadonlyArray<string>) =>
  searchTierOf(searchQueryOf(query), searchDocumentOf(fields).fields)

describe("search text (contract Library model, Search)", () => {
  it("search: case, accents and punctuation are ignored (sinners → Sinner's, dont → Don't, ac dc/acdc → AC/DC)", () => {
    expect(searchWordsOf("Sinner's Prayer")).toEqual(["sinners", "prayer"])
    expect(searchWordsOf("Don’t Explain")).toEqual(["dont", "explain"])
    expect(searchWordsOf("AC/DC")).toEqual(["ac", "dc", "acdc"])
    expect(searchWordsOf("Beyoncé")).toEqual(["beyonce"])
    expect(searchWordsOf("  Björk   Guðmundsdóttir ")).toEqual(["bjork", "gudmundsdottir"])
    expect(searchWordsOf("Mötley Crüe — Dr. Feelgood")).toEqual(["motley", "crue", "dr", "feelgood"])
    expect(searchWordsOf("R&B, Vol. 2")).toEqual(["r", "b", "rb", "vol", "2"])
    expect(searchWordsOf("Guns N' Roses")).toEqual(["guns", "n", "roses"])
    expect(searchWordsOf("Don´t")).toEqual(["dont"])
    expect(finds("sinners", ["Sinner's Prayer", "Don't Explain", "Beth Hart"])).toBe(true)
    expect(finds("dont explain", ["Don't Explain", "Don't Explain", "Beth Hart"])).toBe(true)
    expect(finds("DONT", ["Don't Explain"])).toBe(true)
    expect(finds("ac dc", ["Back in Black", "Back in Black", "AC/DC"])).toBe(true)
    expect(finds("acdc", ["Back in Black", "Back in Black", "AC/DC"])).toBe(true)
    expect(finds("ac/dc", ["Back in Black", "Back in Black", "AC/DC"])).toBe(true)
    expect(finds("AC-DC back", ["Back in Black", "Back in Black", "AC/DC"])).toBe(true)
    expect(finds("beyonce", ["Halo", "I Am… Sasha Fierce", "Beyoncé"])).toBe(true)
    expect(finds("bjork", ["Björk"])).toBe(true)
    expect(finds("sinner's", ["Sinner's Prayer"])).toBe(true)
  })

  it("search: every word must match some field (artist + title)", () => {
    const uprising = ["Uprising", "The Resistance", "Muse"]
    expect(finds("muse uprising", uprising)).toBe(true)
    expect(finds("uprising muse", uprising)).toBe(true)
    expect(finds("muse resistance uprising", uprising)).toBe(true)
    // A word no field has: not a match, however well the others match.
    expect(finds("muse uprising live", uprising)).toBe(false)
    expect(finds("muse hysteria", uprising)).toBe(false)
    // Words, not substrings: "rising" is inside "uprising" but no word starts with it.
    expect(finds("rising", uprising)).toBe(false)
  })

  it("search: the last word matches as a prefix", () => {
    const uprising = ["Uprising", "The Resistance", "Muse"]
    expect(finds("muse upri", uprising)).toBe(true)
    expect(finds("mu", uprising)).toBe(true)
    expect(finds("resist", uprising)).toBe(true)
    // Only the last word: an earlier word must be whole.
    expect(finds("mu uprising", uprising)).toBe(false)
    expect(finds("uprising mu", uprising)).toBe(true)
  })

  it("search: an artist's name finds their albums and tracks", () => {
    // A track's fields: title, album title, every credited artist; an album's: title and album artists.
    expect(finds("beth hart", ["Sinner's Prayer", "Don't Explain", "Beth Hart", "Joe Bonamassa"])).toBe(true)
    expect(finds("bonamassa", ["Sinner's Prayer", "Don't Explain", "Beth Hart", "Joe Bonamassa"])).toBe(true)
    expect(finds("beth hart", ["Don't Explain", "Beth Hart", "Joe Bonamassa"])).toBe(true)
  })

  it("search: ranking — whole-field equal, then all-prefix, then the rest", () => {
    const muse = ["Muse"]
    const musical = ["Musical Chairs", "Museum Pieces", "Muse"]
    const amuse = ["Amuse Bouche", "The Muse Within", "Someone"]
    expect(tier("muse", muse)).toBe(0)
    expect(tier("MUSE", musical)).toBe(0)
    expect(tier("musi", musical)).toBe(1)
    expect(tier("muse", amuse)).toBe(2)
    // The whole query against a whole field, whatever the spacing or punctuation typed.
    expect(tier("ac dc", ["Highway to Hell", "AC/DC"])).toBe(0)
    expect(tier("acdc", ["Highway to Hell", "AC/DC"])).toBe(0)
    expect(tier("dont explain", ["Don't Explain"])).toBe(0)
    expect(tier("the res", ["Uprising", "The Resistance", "Muse"])).toBe(1)
    expect(tier("muse upr", ["Uprising", "The Resistance", "Muse"])).toBe(2)
  })

  it("a document lists each word and each field once, spaced at both ends; an empty one is empty", () => {
    expect(searchDocumentOf(["Back in Black", "Back in Black", "AC/DC"])).toEqual({
      words: " back in black ac dc acdc ",
      fields: "|back in black|ac dc|acdc|",
    })
    expect(searchDocumentOf(["", "…"])).toEqual({ words: "", fields: "" })
    expect(searchQueryOf(" ,; ").words).toEqual([])
    expect(searchFieldsOf("Sinner's Prayer")).toEqual(["sinners prayer"])
    expect(searchFieldsOf("R&B, Vol. 2")).toEqual(["r b vol 2", "rb vol 2"])
  })

  it("a query that starts a field is a match (the field's words are words of the document)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { maxLength: 4 }),
        fc.nat(),
        (fields, cut) => {
          const document = searchDocumentOf(fields)
          for (const field of document.fields.split("|").filter((f) => f !== "")) {
            const typed = [...field].slice(0, 1 + (cut % [...field].length)).join("")
            const query = searchQueryOf(typed)
            if (query.words.length === 0 || query.field !== typed.trim()) continue
            expect(searchMatches(query, document.words)).toBe(true)
            expect(searchTierOf(query, document.fields)).toBeLessThan(2)
          }
        },
      ),
    )
  })

  it("a document keeps whole words up to SEARCH_DOCUMENT_MAX_BYTES (a title of hundreds of words is found by its first)", () => {
    const title = Array.from({ length: 500 }, (_, i) => `wörd${i}`).join(" ")
    const document = searchDocumentOf([title, "Album", "Artist"])
    expect(Buffer.byteLength(document.words, "utf8")).toBeLessThanOrEqual(SEARCH_DOCUMENT_MAX_BYTES)
    expect(document.words.startsWith(" word0 word1 word2 ")).toBe(true)
    expect(document.words.endsWith(" ")).toBe(true)
    expect(document.words).not.toContain("word499")
    expect(searchDocumentOf(["Short"]).words).toBe(" short ")
  })

  it("closest items are looked for from SEARCH_CLOSEST_MIN_LETTERS letters and digits on", () => {
    expect(SEARCH_CLOSEST_MIN_LETTERS).toBe(4)
    expect(searchWantsClosest(searchQueryOf("hyx"))).toBe(false)
    expect(searchWantsClosest(searchQueryOf("a-b c"))).toBe(false)
    expect(searchWantsClosest(searchQueryOf("beyonse"))).toBe(true)
    expect(searchWantsClosest(searchQueryOf("ab cd"))).toBe(true)
  })

  it("the fold agrees with searchKeyOf on letters and digits (which sort keys keep using)", () => {
    expect(searchFieldsOf("²＇¹")).toEqual(["21"])
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 30 }), (text) => {
        const plain = (s: string) => s.replace(/[^\p{L}\p{N}]+/gu, " ").trim()
        // Apostrophes vanish, also those a compatibility form becomes ("＇" is "'" once decomposed).
        const apostrophes = /['’‘ʼ`´]/g
        const noApostrophes = text.replace(apostrophes, "").normalize("NFKD").replace(apostrophes, "")
        expect(searchFieldsOf(text)[0] ?? "").toBe(plain(searchKeyOf(noApostrophes)))
      }),
    )
  })

  it("every word of a document is found by itself, and by each of its prefixes as the last word", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { maxLength: 4 }), (fields) => {
        const document = searchDocumentOf(fields)
        for (const word of document.words.split(" ").filter((w) => w !== "")) {
          expect(searchMatches(searchQueryOf(word), document.words)).toBe(true)
          expect(searchMatches(searchQueryOf([...word][0]!), document.words)).toBe(true)
        }
      }),
    )
  })
})

describe("search documents made during a scan", () => {
  it("a document maker that folds each field text once makes the same documents as searchDocumentOf", () => {
    // Two texts kept at most: the memory is cleared and refilled while the property runs.
    const make = searchDocumentMaker(2)
    const texts = fc.constantFrom("AC/DC", "Don't Explain", "Sigur Rós", "Ágætis byrjun", "the the", "R&B", "")
    fc.assert(
      fc.property(fc.array(fc.oneof(texts, fc.string()), { maxLength: 5 }), (fields) => {
        expect(make(fields)).toEqual(searchDocumentOf(fields))
      }),
    )
  })
})
