import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import {
  chooseLyrics,
  decodeLyricsText,
  type EmbeddedLyricsTag,
  embeddedLyrics,
  isLrc,
  LYRICS_SOURCE_ORDER,
  type Lyrics,
  lyricsLanguage,
  lyricsMatches,
  lyricsMatchRank,
  lyricsOfText,
  lyricsSearchQueries,
  parseLrc,
  syltLines,
} from "../src/library/lyrics.js"
import { classicLyricsOf, structuredLyricsOf } from "../src/subsonic/lyrics.js"

const some = (lyrics: Option.Option<Lyrics>) => Option.getOrThrow(lyrics)
const text = (value: string, lang: string | null = null): EmbeddedLyricsTag => ({ kind: "text", lang, text: value })
const sylt = (
  entries: ReadonlyArray<readonly [number, string]>,
  options: { millis?: boolean; lang?: string | null; contentType?: number } = {},
): Extract<EmbeddedLyricsTag, { kind: "sylt" }> => ({
  kind: "sylt",
  lang: options.lang ?? null,
  contentType: options.contentType ?? 1,
  millis: options.millis ?? true,
  entries: entries.map(([ms, words]) => ({ ms, text: words })),
})

describe("LRC parser", () => {
  it("[mm:ss.xx], [mm:ss.xxx], [mm:ss.x] and [mm:ss] stamps time their line in milliseconds", () => {
    const parsed = parseLrc("[00:01.50]one\n[00:02.250]two\n[01:03.7]three\n[02:00]four")
    expect(parsed.synced).toBe(true)
    expect(parsed.lines).toEqual([
      { start_ms: 1_500, text: "one" },
      { start_ms: 2_250, text: "two" },
      { start_ms: 63_700, text: "three" },
      { start_ms: 120_000, text: "four" },
    ])
  })

  it("several stamps on one line repeat it at each time", () => {
    expect(parseLrc("[00:10.00][00:30.00]chorus\n[00:20.00]verse").lines).toEqual([
      { start_ms: 10_000, text: "chorus" },
      { start_ms: 20_000, text: "verse" },
      { start_ms: 30_000, text: "chorus" },
    ])
  })

  it("lines are sorted by time, ties keep file order", () => {
    expect(parseLrc("[00:05.00]b\n[00:01.00]a\n[00:05.00]c").lines.map((line) => line.text)).toEqual(["a", "b", "c"])
  })

  it("[offset:+ms] makes lyrics appear sooner, [offset:-ms] later, never before 0", () => {
    expect(parseLrc("[offset:+500]\n[00:02.00]x\n[00:00.20]y").lines).toEqual([
      { start_ms: 0, text: "y" },
      { start_ms: 1_500, text: "x" },
    ])
    const later = parseLrc("[offset:-250]\n[00:01.00]x")
    expect(later.offsetMs).toBe(-250)
    expect(later.lines).toEqual([{ start_ms: 1_250, text: "x" }])
  })

  it("metadata tags like [ar:], [ti:], [al:], [by:], [length:] are not lyrics", () => {
    const parsed = parseLrc("[ar:Alice]\n[ti:Song]\n[al:Album]\n[by:someone]\n[length: 03:20]\n[00:01.00]words")
    expect(parsed.lines).toEqual([{ start_ms: 1_000, text: "words" }])
  })

  it("[la:] gives the language; xxx and und mean none", () => {
    expect(parseLrc("[la:en]\n[00:01.00]hi").lang).toBe("en")
    expect(parseLrc("[la:xxx]\n[00:01.00]hi").lang).toBeNull()
    expect(parseLrc("[00:01.00]hi").lang).toBeNull()
  })

  it("enhanced LRC word times are dropped from the text; blank timed lines (instrumental breaks) stay", () => {
    expect(parseLrc("[00:01.00]<00:01.00>Hel<00:01.50>lo\r\n[00:04.00]\r\n[00:05.00]again").lines).toEqual([
      { start_ms: 1_000, text: "Hello" },
      { start_ms: 4_000, text: "" },
      { start_ms: 5_000, text: "again" },
    ])
  })

  it("a text with no timed line is unsynced: its lines as written, bracketed words like [Chorus] kept", () => {
    const parsed = parseLrc("\n\nFirst line\n\n[Chorus]\n[Chorus: Bob]\nLast\n\n")
    expect(parsed.synced).toBe(false)
    expect(parsed.lines).toEqual([
      { start_ms: null, text: "First line" },
      { start_ms: null, text: "" },
      { start_ms: null, text: "[Chorus]" },
      { start_ms: null, text: "[Chorus: Bob]" },
      { start_ms: null, text: "Last" },
    ])
  })

  it("isLrc: a text is LRC-formatted when a line starts with a timestamp", () => {
    expect(isLrc("[00:01.00]x")).toBe(true)
    expect(isLrc("intro\n  [01:02]x")).toBe(true)
    expect(isLrc("[ar:Someone]\nplain words")).toBe(false)
    expect(isLrc("[Chorus]\nla la")).toBe(false)
  })
})

describe("lyrics language", () => {
  it("an ISO 639 code from the tag, lower-cased; xxx, und, NULs, blank and junk are null", () => {
    expect(lyricsLanguage("eng")).toBe("eng")
    expect(lyricsLanguage("DEU")).toBe("deu")
    expect(lyricsLanguage("en-US")).toBe("en-us")
    expect(lyricsLanguage("XXX")).toBeNull()
    expect(lyricsLanguage("und")).toBeNull()
    expect(lyricsLanguage("\0\0\0")).toBeNull()
    expect(lyricsLanguage("")).toBeNull()
    expect(lyricsLanguage("english please")).toBeNull()
    expect(lyricsLanguage(null)).toBeNull()
  })

  it("the tag's language wins over [la:]", () => {
    expect(some(lyricsOfText("[la:fr]\n[00:01.00]x", "embedded", "deu")).lang).toBe("deu")
    expect(some(lyricsOfText("[la:fr]\n[00:01.00]x", "embedded", "xxx")).lang).toBe("fr")
  })
})

describe("embedded lyrics", () => {
  it("a SYLT frame in milliseconds is synced, sorted by time", () => {
    const lyrics = some(
      embeddedLyrics([
        sylt(
          [
            [2_000, "two"],
            [1_000, "one"],
          ],
          { lang: "eng" },
        ),
      ]),
    )
    expect(lyrics).toMatchObject({ synced: true, lang: "eng", source: "embedded" })
    expect(lyrics.lines).toEqual([
      { start_ms: 1_000, text: "one" },
      { start_ms: 2_000, text: "two" },
    ])
  })

  it("SYLT syllables join into lines at the entries that start with a line break", () => {
    expect(
      syltLines(
        sylt([
          [0, "Hel"],
          [300, "lo"],
          [1_000, "\nwor"],
          [1_200, "ld"],
        ]),
      ),
    ).toEqual([
      { start_ms: 0, text: "Hello" },
      { start_ms: 1_000, text: "world" },
    ])
  })

  it("a SYLT frame timed in MPEG frames counts as unsynced", () => {
    const lyrics = some(
      embeddedLyrics([
        sylt(
          [
            [10, "a"],
            [20, "b"],
          ],
          { millis: false },
        ),
      ]),
    )
    expect(lyrics.synced).toBe(false)
    expect(lyrics.lines).toEqual([
      { start_ms: null, text: "a" },
      { start_ms: null, text: "b" },
    ])
  })

  it("SYLT frames of chords, events or trivia are not lyrics", () => {
    expect(embeddedLyrics([sylt([[0, "Am"]], { contentType: 5 })])).toEqual(Option.none())
  })

  it("an embedded text that is LRC-formatted counts as synced", () => {
    const lyrics = some(embeddedLyrics([text("[00:01.00]Hi\n[00:02.00]There")]))
    expect(lyrics.synced).toBe(true)
    expect(lyrics.lines).toEqual([
      { start_ms: 1_000, text: "Hi" },
      { start_ms: 2_000, text: "There" },
    ])
  })

  it("a synced tag wins over an unsynced one earlier in the file; else the first unsynced one", () => {
    expect(some(embeddedLyrics([text("plain", "eng"), sylt([[0, "timed"]])])).lines).toEqual([
      { start_ms: 0, text: "timed" },
    ])
    expect(some(embeddedLyrics([text("first"), text("second")])).lines).toEqual([{ start_ms: null, text: "first" }])
  })

  it("tags with no words are skipped", () => {
    expect(embeddedLyrics([text("  \n "), sylt([[0, ""]])])).toEqual(Option.none())
    expect(some(embeddedLyrics([text(""), text("words")])).lines).toEqual([{ start_ms: null, text: "words" }])
  })
})

describe("lyrics source order", () => {
  const lrc = "[00:01.00]from lrc"
  const synced = sylt([[0, "from sylt"]])
  const unsynced = text("from uslt")
  const txt = "from txt"
  const first = (found: Parameters<typeof chooseLyrics>[0]) => {
    const lyrics = some(chooseLyrics(found))
    return `${lyrics.source}: ${lyrics.lines[0]!.text}`
  }

  it("the order is a sidecar .lrc, then the file's tags, then a sidecar .txt", () => {
    expect(LYRICS_SOURCE_ORDER).toEqual(["lrc", "embedded", "txt"])
  })

  it("a sidecar .lrc wins over everything", () => {
    expect(first({ lrc, embedded: [synced, unsynced], txt })).toBe("lrc: from lrc")
  })

  it("embedded synced wins over embedded unsynced, whatever their order in the file", () => {
    expect(first({ embedded: [unsynced, synced], txt })).toBe("embedded: from sylt")
  })

  it("embedded unsynced wins over a sidecar .txt", () => {
    expect(first({ embedded: [unsynced], txt })).toBe("embedded: from uslt")
  })

  it("a sidecar .txt is the last resort, unsynced", () => {
    expect(first({ embedded: [], txt })).toBe("txt: from txt")
    expect(some(chooseLyrics({ txt })).synced).toBe(false)
  })

  it("a source with no words gives way to the next", () => {
    expect(first({ lrc: "[ar:Nobody]\n", embedded: [text(" ")], txt })).toBe("txt: from txt")
  })

  it("nothing found: no lyrics", () => {
    expect(chooseLyrics({})).toEqual(Option.none())
    expect(chooseLyrics({ lrc: "", embedded: [], txt: "\n" })).toEqual(Option.none())
  })
})

describe("sidecar text decoding", () => {
  it("UTF-8, with a byte-order mark stripped", () => {
    expect(decodeLyricsText(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("Café", "utf8")]))).toBe("Café")
    expect(decodeLyricsText(Buffer.from("naïve", "utf8"))).toBe("naïve")
  })

  it("UTF-16 with a byte-order mark is read as UTF-16", () => {
    expect(decodeLyricsText(new Uint8Array([0xff, 0xfe, ...Buffer.from("Hé", "utf16le")]))).toBe("Hé")
  })
})

describe("getLyrics matching", () => {
  const tracks = [
    { id: "1", title: "Dont Stop", artist_name: "Alice feat. Bob" },
    { id: "2", title: "Don't Stop!", artist_name: "Alice" },
    { id: "3", title: "Don't Stop Me", artist_name: "Alice" },
    { id: "4", title: "Don’t stop", artist_name: "Carol" },
  ]

  it("the title must be equal, ignoring case, accents and punctuation", () => {
    expect(lyricsMatchRank(tracks[1]!, { title: "dont stop" })).toBe(0)
    expect(lyricsMatchRank(tracks[2]!, { title: "dont stop" })).toBeUndefined()
    expect(lyricsMatchRank({ title: "Café", artist_name: "X" }, { title: "cafe" })).toBe(0)
  })

  it("the library is searched for the title as asked and with its punctuation folded away", () => {
    expect(lyricsSearchQueries(" Don't Stop! ")).toEqual(["Don't Stop!", "dont stop"])
    expect(lyricsSearchQueries("plain")).toEqual(["plain"])
    expect(lyricsSearchQueries(" ")).toEqual([])
  })

  it("an exact artist ranks before an artist named within the artist text; other artists do not match", () => {
    expect(lyricsMatches(tracks, { artist: "alice", title: "Don't stop" }).map((track) => track.id)).toEqual(["2", "1"])
    expect(lyricsMatches(tracks, { artist: "Bob", title: "Don't stop" }).map((track) => track.id)).toEqual(["1"])
    expect(lyricsMatches(tracks, { title: "Don't stop" }).map((track) => track.id)).toEqual(["1", "2", "4"])
  })
})

describe("Subsonic lyrics shapes", () => {
  const song = { title: "Song", artist_name: "Alice" }

  it("structured lyrics: start only on synced lines, offset 0 (already applied), xxx for no language", () => {
    const synced = some(lyricsOfText("[offset:100]\n[00:01.00]a", "lrc"))
    expect(structuredLyricsOf(synced, song)).toEqual({
      displayArtist: "Alice",
      displayTitle: "Song",
      lang: "xxx",
      offset: 0,
      synced: true,
      line: [{ start: 900, value: "a" }],
    })
    const plain = some(lyricsOfText("a\nb", "txt"))
    expect(structuredLyricsOf(plain, song).line).toEqual([{ value: "a" }, { value: "b" }])
  })

  it("classic lyrics: the lines as one text", () => {
    expect(classicLyricsOf(some(lyricsOfText("[00:01.00]a\n[00:02.00]b", "lrc")), song)).toEqual({
      artist: "Alice",
      title: "Song",
      value: "a\nb",
    })
  })
})
