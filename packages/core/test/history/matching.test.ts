import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  buildMatchIndex,
  FUZZY_MIN_LETTERS,
  type MatchCandidate,
  type MatchQuery,
  matchListen,
  searchQueryOf,
  withinOneEdit,
} from "../../src/index.js"

const track = (track_id: string, title: string, artists: Array<string>, more: Partial<MatchCandidate> = {}) =>
  ({
    track_id,
    title,
    artists,
    album_artist: artists[0] ?? null,
    album: "Album",
    mbid: null,
    duration_ms: 200_000,
    ...more,
  }) satisfies MatchCandidate

const listen = (artist: string, title: string, album: string | null = null, recording_mbid: string | null = null) =>
  ({ artist, title, album, recording_mbid }) satisfies MatchQuery

/** The track id a listen matches in this library, or null. */
const matchIn = (library: ReadonlyArray<MatchCandidate>) => {
  const index = buildMatchIndex(library)
  return (artist: string, title: string, album: string | null = null) =>
    matchListen(index, listen(artist, title, album))?.track_id ?? null
}

describe("matching imported listens (contract Listening history in and out)", () => {
  it("matching: the recording MBID first, whatever the texts say; an unknown MBID falls back to the texts", () => {
    const index = buildMatchIndex([
      track("t1", "Sinner's Prayer", ["Beth Hart"], { mbid: "0f9a4c9e-1111-4a11-8111-111111111111" }),
      track("t2", "Don't Explain", ["Beth Hart"]),
    ])
    expect(matchListen(index, listen("Someone", "Else", null, "0F9A4C9E-1111-4A11-8111-111111111111"))).toEqual({
      track_id: "t1",
      how: "mbid",
    })
    expect(
      matchListen(index, listen("Beth Hart", "Don't Explain", null, "22222222-0000-4000-8000-000000000000")),
    ).toEqual({ track_id: "t2", how: "exact_no_album" })
  })

  it("matching: folded artist and title, with the search folding (case, accents, apostrophes, punctuation)", () => {
    const match = matchIn([
      track("t1", "Don't Explain", ["Beth Hart"]),
      track("t2", "Back in Black", ["AC/DC"]),
      track("t3", "Jóga", ["Björk"]),
      track("t4", "Straße", ["Mötley Crüe"]),
    ])
    expect(match("BETH HART", "dont explain")).toBe("t1")
    expect(match("beth hart", "Don’t  Explain!")).toBe("t1")
    expect(match("ACDC", "back in black")).toBe("t2")
    expect(match("AC-DC", "Back In Black")).toBe("t2")
    expect(match("Bjork", "Joga")).toBe("t3")
    expect(match("Motley Crue", "strasse")).toBe("t4")
    expect(match("Joe Bonamassa", "Don't Explain")).toBeNull()
    expect(match("Beth Hart", "Explain")).toBeNull()
    expect(match("", "Don't Explain")).toBeNull()
    expect(match("Beth Hart", "")).toBeNull()
  })

  it("matching: the album narrows ties and says `exact`, but a different album never blocks a match", () => {
    const index = buildMatchIndex([
      track("t1", "Rain", ["The Owls"], { album: "First" }),
      track("t2", "Rain", ["The Owls"], { album: "Second (Deluxe Edition)" }),
      track("t3", "Snow", ["The Owls"], { album: "First" }),
    ])
    expect(matchListen(index, listen("The Owls", "Rain", "second"))).toEqual({ track_id: "t2", how: "exact" })
    expect(matchListen(index, listen("The Owls", "Rain", "Second [2011 Remaster]"))).toEqual({
      track_id: "t2",
      how: "exact",
    })
    expect(matchListen(index, listen("The Owls", "Rain", "First"))).toEqual({ track_id: "t1", how: "exact" })
    expect(matchListen(index, listen("The Owls", "Snow", "Some Single"))).toEqual({
      track_id: "t3",
      how: "exact_no_album",
    })
    expect(matchListen(index, listen("The Owls", "Snow", null))).toEqual({ track_id: "t3", how: "exact_no_album" })
  })

  it("matching: the first credited artist or the album artist; a guest only when the listen names the album", () => {
    const match = matchIn([
      track("t1", "Under Pressure", ["Queen", "David Bowie"], { album_artist: "Queen", album: "Hot Space" }),
      track("t2", "Guest Spot", ["Ana Lima"], { album_artist: "Pedro Costa", album: "Pedro's Friends" }),
      track("t3", "On a Compilation", ["Ana Lima"], { album_artist: "Various Artists" }),
    ])
    expect(match("Queen", "Under Pressure")).toBe("t1")
    expect(match("Pedro Costa", "Guest Spot")).toBe("t2")
    expect(match("Ana Lima", "On a Compilation")).toBe("t3")
    expect(match("Various Artists", "On a Compilation")).toBeNull()
    // A guest's listen of a title is as likely their own song the library lacks, unless the album says otherwise.
    expect(match("David Bowie", "Under Pressure")).toBeNull()
    expect(match("David Bowie", "Under Pressure", "Hot Space")).toBe("t1")
    // A guest's own song of that title comes first.
    const guest = matchIn([
      track("t1", "Gold", ["Ana Lima", "Pedro Costa"], { album: "Gold" }),
      track("t2", "Gold", ["Pedro Costa"], { album: "Other" }),
    ])
    expect(guest("Pedro Costa", "Gold", "Gold")).toBe("t2")
  })

  it("matching: a listen's artist text read as a credit list (A feat. B, A & B, A, B, A x B)", () => {
    const match = matchIn([
      track("t1", "Under Pressure", ["Queen", "David Bowie"]),
      track("t2", "Duet", ["Ana Lima & Pedro Costa"], { album: "Duets" }),
      track("t3", "Solo", ["Ana Lima"]),
    ])
    for (const artist of [
      "Queen feat. David Bowie",
      "Queen ft. David Bowie",
      "Queen featuring David Bowie",
      "Queen & David Bowie",
      "Queen, David Bowie",
      "Queen x David Bowie",
      "Queen and David Bowie",
      "David Bowie & Queen",
      "Queen / David Bowie",
    ]) {
      expect(match(artist, "Under Pressure"), artist).toBe("t1")
    }
    expect(match("Ana Lima & Pedro Costa", "Duet")).toBe("t2")
    expect(match("Ana Lima and Pedro Costa", "Duet")).toBe("t2")
    // A guest does not make another song: `A feat. B` is A's song, credited to A alone in the library.
    expect(match("Ana Lima feat. Someone Else", "Solo")).toBe("t3")
    expect(match("Someone Else", "Solo")).toBeNull()
  })

  it("matching: a duet is not either artist's song alone, unless the listen names the album", () => {
    const match = matchIn([
      track("t1", "The Boxer", ["Simon"]),
      track("t2", "The Boxer", ["Simon & Garfunkel"], { album: "Bridge" }),
      track("t3", "Gold", ["Pedro Costa"], { album: "Gold" }),
    ])
    expect(match("Simon & Garfunkel", "The Boxer")).toBe("t2")
    expect(match("Simon and Garfunkel", "The Boxer")).toBe("t2")
    expect(match("Simon", "The Boxer")).toBe("t1")
    expect(match("Garfunkel", "The Boxer")).toBeNull()
    expect(match("Garfunkel", "The Boxer", "Bridge")).toBe("t2")
    // A listen of a duet or a featuring never takes the second artist's own song.
    expect(match("Ana Lima feat. Pedro Costa", "Gold")).toBeNull()
    expect(match("Ana Lima & Pedro Costa", "Gold")).toBeNull()
    expect(match("Ana Lima & Pedro Costa", "Gold", "Gold")).toBeNull()
    // Nor the first artist's solo song, unless the album confirms it.
    const solo = matchIn([track("t1", "Gold", ["Ana Lima"], { album: "Gold" })])
    expect(solo("Ana Lima & Pedro Costa", "Gold")).toBeNull()
    expect(solo("Ana Lima & Pedro Costa", "Gold", "Gold")).toBe("t1")
    expect(solo("Ana Lima feat. Pedro Costa", "Gold")).toBe("t1")
  })

  it('matching: a leading "The" is optional, also as a sort name ("Beatles, The")', () => {
    const match = matchIn([track("t1", "Help!", ["The Beatles"]), track("t2", "Creep", ["Radiohead"])])
    expect(match("Beatles", "Help")).toBe("t1")
    expect(match("The Beatles", "Help!")).toBe("t1")
    expect(match("Beatles, The", "Help!")).toBe("t1")
    expect(match("The Radiohead", "Creep")).toBe("t2")
    expect(match("The", "Help!")).toBeNull()
  })

  it("matching, fuzzy: version suffixes dropped on both sides (remaster, radio edit, mono, feat. X)", () => {
    const index = buildMatchIndex([
      track("t1", "Here Comes the Night", ["The Owls"]),
      track("t2", "Golden Hour (2009 Remaster)", ["The Owls"]),
      track("t3", "Paper Moon", ["Ana Lima", "Pedro Costa"]),
    ])
    const how = (artist: string, title: string) => matchListen(index, listen(artist, title))
    for (const title of [
      "Here Comes the Night (Remastered 2011)",
      "Here Comes the Night - 2011 Remaster",
      "Here Comes the Night - Remastered",
      "Here Comes the Night [Mono]",
      "Here Comes the Night - Radio Edit",
      "Here Comes the Night (Single Version)",
      "Here Comes the Night (feat. Ana Lima)",
      "Here Comes the Night feat. Ana Lima",
      "Here Comes the Night (with Ana Lima) - 2011 Remaster",
    ]) {
      expect(how("The Owls", title), title).toEqual({ track_id: "t1", how: "fuzzy" })
    }
    expect(how("The Owls", "Golden Hour")).toEqual({ track_id: "t2", how: "fuzzy" })
    expect(how("The Owls", "Golden Hour - Remastered 2015")).toEqual({ track_id: "t2", how: "fuzzy" })
    expect(how("Ana Lima", "Paper Moon (feat. Pedro Costa)")).toEqual({ track_id: "t3", how: "fuzzy" })
    expect(how("The Owls", "Golden Hour (2009 Remaster)")).toEqual({ track_id: "t2", how: "exact_no_album" })
  })

  it("matching, fuzzy: other versions (remix, acoustic, demo, part, reprise) stay other songs", () => {
    const match = matchIn([track("t1", "Here Comes the Night", ["The Owls"])])
    for (const title of [
      "Here Comes the Night (Remix)",
      "Here Comes the Night - Club Mix",
      "Here Comes the Night (Acoustic)",
      "Here Comes the Night - Demo",
      "Here Comes the Night, Pt. 2",
      "Here Comes the Night (Reprise)",
      "Here Comes the Night (Instrumental)",
    ]) {
      expect(match("The Owls", title), title).toBeNull()
    }
  })

  it("matching, fuzzy: a live listen takes the live version, else the studio one; a studio listen never a live track", () => {
    const withLive = matchIn([
      track("studio", "Golden Hour", ["The Owls"]),
      track("live", "Golden Hour (Live at Wembley)", ["The Owls"], { album: "Live!" }),
    ])
    expect(withLive("The Owls", "Golden Hour - Live")).toBe("live")
    expect(withLive("The Owls", "Golden Hour (Live)")).toBe("live")
    expect(withLive("The Owls", "Golden Hour")).toBe("studio")
    expect(withLive("The Owls", "Golden Hour - 2011 Remaster")).toBe("studio")
    const studioOnly = matchIn([track("studio", "Golden Hour", ["The Owls"])])
    expect(studioOnly("The Owls", "Golden Hour - Live")).toBe("studio")
    const liveOnly = matchIn([track("live", "Golden Hour - Live", ["The Owls"])])
    expect(liveOnly("The Owls", "Golden Hour")).toBeNull()
    expect(liveOnly("The Owls", "Golden Hour (Live in Paris)")).toBe("live")
  })

  it(`matching, fuzzy: one typo in a title of ${FUZZY_MIN_LETTERS}+ letters, only when one title of the artist is that close`, () => {
    const match = matchIn([
      track("t1", "Morning Light", ["The Owls"]),
      track("t2", "Rain", ["The Owls"]),
      track("t3", "Starlight", ["The Owls"]),
      track("t4", "Starlights", ["The Owls"]),
      track("t5", "Symphony No. 5", ["The Owls"]),
      track("t6", "Letters Part II", ["The Owls"]),
      track("t7", "Morning Light", ["Ana Lima"]),
    ])
    expect(match("The Owls", "Mornign Light")).toBe("t1") // swapped letters
    expect(match("The Owls", "Morning Lihgt - Remastered")).toBe("t1")
    expect(match("The Owls", "Morning Lght")).toBe("t1") // a letter dropped
    expect(match("The Owls", "Morning Lightt")).toBe("t1") // a letter added
    expect(match("The Owls", "Morming Light")).toBe("t1") // a letter changed
    expect(match("The Owls", "Mornin Lihgt")).toBeNull() // two edits
    expect(match("The Owls", "Rian")).toBeNull() // too short to forgive
    expect(match("The Owls", "Starlighs")).toBeNull() // close to two titles
    expect(match("The Owls", "Symphony No. 6")).toBeNull() // numbers never change
    expect(match("The Owls", "Symphony No 5")).toBe("t5")
    expect(match("The Owls", "Letters Part III")).toBeNull()
    expect(match("Pedro Costa", "Mornign Light")).toBeNull() // never another artist
    expect(matchListen(buildMatchIndex([track("t1", "Morning Light", ["A"])]), listen("A", "Mornign Light"))).toEqual({
      track_id: "t1",
      how: "fuzzy",
    })
  })

  it(`matching, fuzzy: one typo in an artist name of ${FUZZY_MIN_LETTERS}+ letters, only when one artist is that close`, () => {
    const match = matchIn([
      track("t1", "Morning Light", ["Beth Hartley"]),
      track("t2", "Rain", ["Beth Hartley"]),
      track("t3", "Rain", ["Lena Marsh"]),
      track("t4", "Rain", ["Lena Mars"]),
      track("t5", "Home", ["Blink-182"]),
      track("t6", "Snow", ["Muse"]),
    ])
    expect(match("Beth Hratley", "Morning Light")).toBe("t1")
    expect(match("Beth Hartly", "Rain")).toBe("t2")
    expect(match("Beth Hartley", "Rain")).toBe("t2")
    expect(
      matchListen(buildMatchIndex([track("t1", "Rain", ["Beth Hartley"])]), listen("Bet Hartley", "Rain")),
    ).toEqual({ track_id: "t1", how: "fuzzy" })
    expect(match("Beth Hartley", "Rian")).toBeNull() // never both
    expect(match("Lena Marsch", "Rain")).toBe("t3")
    expect(match("Lena Marss", "Rain")).toBeNull() // close to two artists
    expect(match("Blink-183", "Home")).toBeNull() // numbers never change
    expect(match("Mose", "Snow")).toBeNull() // too short to forgive
  })

  it("matching: ties go to the album given, else the artist's own album over a compilation, else the lowest id", () => {
    const library = [
      track("b-compilation", "Rain", ["The Owls"], { album: "Hits of the Year", album_artist: "Various Artists" }),
      track("c-own", "Rain", ["The Owls"], { album: "Weather", album_artist: "The Owls" }),
      track("d-own", "Rain", ["The Owls"], { album: "Weather Again", album_artist: "The Owls" }),
    ]
    const match = matchIn(library)
    expect(match("The Owls", "Rain", "Hits of the Year")).toBe("b-compilation")
    expect(match("The Owls", "Rain", "Weather Again")).toBe("d-own")
    expect(match("The Owls", "Rain")).toBe("c-own")
    expect(match("The Owls", "Rain", "Unknown Album")).toBe("c-own")
    // The same answer whatever order the library comes in.
    expect(matchIn([...library].reverse())("The Owls", "Rain")).toBe("c-own")
    expect(matchIn([library[0]!, { ...library[1]!, album_artist: "Various Artists" }])("The Owls", "Rain")).toBe(
      "b-compilation",
    )
  })

  it("matching: a track absent from the library never matches another artist's song of that title", () => {
    const match = matchIn([track("t1", "Morning Light", ["Ana Lima"]), track("t2", "Rain", ["The Quiet Owls"])])
    expect(match("Pedro Costa", "Morning Light")).toBeNull()
    expect(match("The Loud Owls", "Rain")).toBeNull()
    expect(match("Quiet Owls", "Rain")).toBe("t2")
  })

  it("withinOneEdit: one change, insertion, deletion or swap of neighbours", () => {
    expect(withinOneEdit("abcdef", "abcdef")).toBe(true)
    expect(withinOneEdit("abcdef", "abcxef")).toBe(true)
    expect(withinOneEdit("abcdef", "abdcef")).toBe(true)
    expect(withinOneEdit("abcdef", "abcef")).toBe(true)
    expect(withinOneEdit("abcdef", "abcdefg")).toBe(true)
    expect(withinOneEdit("abcdef", "xbcdef")).toBe(true)
    expect(withinOneEdit("abcdef", "bacdfe")).toBe(false)
    expect(withinOneEdit("abcdef", "abcd")).toBe(false)
    expect(withinOneEdit("abcdef", "axcdey")).toBe(false)
    expect(withinOneEdit("abcdef", "acbdfe")).toBe(false)
  })
})

// -----------------------------------------------------------------------------------------------------------------
// Properties

/** Names from a small vocabulary, so titles and artists collide often. */
const WORDS = ["rain", "light", "morning", "owls", "the", "garden", "ghost", "stars", "Björk", "Don't", "AC/DC", "x"]
const name = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 })
  .map((words) => words.join(" "))
  .filter((text) => searchQueryOf(text).words.some((word) => word !== "the" && word !== "x"))

const libraryArb = fc.uniqueArray(fc.record({ artist: name, title: name }), {
  minLength: 1,
  maxLength: 30,
  selector: (row) => `${row.artist}|${row.title}`,
})

const candidatesOf = (rows: ReadonlyArray<{ artist: string; title: string }>) =>
  rows.map((row, i) => track(`t${String(i).padStart(3, "0")}`, row.title, [row.artist]))

/** Everything a matched track is "by": its artists' folded words. */
const folded = (text: string) => searchQueryOf(text).words.join("")

describe("matching properties", () => {
  it("property: a track's own artist and title always find a track of that artist and title", () => {
    fc.assert(
      fc.property(libraryArb, fc.nat(), (rows, pick) => {
        const library = candidatesOf(rows)
        const wanted = library[pick % library.length]!
        const found = matchListen(buildMatchIndex(library), listen(wanted.artists[0]!, wanted.title))
        expect(found).not.toBeNull()
        const got = library.find((candidate) => candidate.track_id === found!.track_id)!
        expect(folded(got.title)).toBe(folded(wanted.title))
      }),
    )
  })

  it("property: case, accents and spacing of the listen do not change the answer", () => {
    const vary = (text: string, how: number) =>
      how === 0 ? text.toUpperCase() : how === 1 ? text.normalize("NFD") : `  ${text.replace(/ /g, "  ")} `
    fc.assert(
      fc.property(libraryArb, name, name, fc.integer({ min: 0, max: 2 }), (rows, artist, title, how) => {
        const index = buildMatchIndex(candidatesOf(rows))
        expect(matchListen(index, listen(vary(artist, how), vary(title, how)))).toEqual(
          matchListen(index, listen(artist, title)),
        )
      }),
    )
  })

  it("property: a listen of a track absent from the library never matches another artist", () => {
    fc.assert(
      fc.property(libraryArb, name, name, (rows, artist, title) => {
        const library = candidatesOf(rows.filter((row) => folded(row.artist) !== folded(artist)))
        if (library.length === 0) return
        // Unless the artist text is a list of names: then one name of it may be credited.
        if (/&|,| x | and /i.test(artist)) return
        const found = matchListen(buildMatchIndex(library), listen(artist, title))
        if (found === null) return
        const got = library.find((candidate) => candidate.track_id === found.track_id)!
        // The track's artist, or one name of it when it reads as a list (`rain x owls`).
        const strip = (text: string) =>
          folded(text)
            .replace(/^the(?=.)/, "")
            .replace(/(?<=.)the$/, "")
        const names = [got.artists[0]!, ...got.artists[0]!.split(/ x |&|,| and /i)].map(strip)
        expect(names).toContain(strip(artist))
      }),
    )
  })
})
