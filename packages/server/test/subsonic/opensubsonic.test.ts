import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import type { Element } from "@xmldom/xmldom"
import { Effect } from "effect"
import SubsonicAPI from "subsonic-api"
import { BITEXACT, ffmpeg, sineInput } from "../../fixtures/ffmpeg.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { rawJson } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"
import { type Auth, callXml, ok, onceOk, type Params, withToken } from "./support.js"
import { parseXml } from "./xsdShape.js"

/**
 * The OpenSubsonic fields of the library model (contract "Subsonic compatibility: additions"): songs' artists,
 * album artists, display texts, sort names, MusicBrainz ids, ReplayGain and disc numbers; albums' artists, sort
 * names, disc titles, compilation flag and version; every credited artist in the indexes. The files are real FLAC
 * made by ffmpeg, their Vorbis comments written with `-metadata`.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-opensubsonic-"))

const TRACK_MBID = "5b11f4ce-a62d-471e-81fc-a69a8278c7da"
const ALBUM_MBID = "0c6b8c5a-6a2a-4b7e-9b2e-4c5f0e1d2a3b"
const ALICE_MBID = "a74b1b7f-71a5-4011-9441-d0b5e4122711"

const flac = async (relative: string, frequency: number, tags: Record<string, string>) => {
  const target = path.join(root, relative)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  const metadata = Object.entries(tags).flatMap(([key, value]) => ["-metadata", `${key}=${value}`])
  await ffmpeg([...sineInput(1, frequency), ...BITEXACT, "-c:a", "flac", ...metadata, target])
}

const duets = {
  ALBUM: "The Duets",
  ALBUMARTIST: "Alice",
  DATE: "2020",
  MUSICBRAINZ_ALBUMID: ALBUM_MBID,
  MUSICBRAINZ_ALBUMARTISTID: ALICE_MBID,
  MUSICBRAINZ_ALBUMCOMMENT: "Deluxe Edition",
}
await flac("Alice/The Duets/01 Opening.flac", 440, {
  ...duets,
  TITLE: "The Opening",
  TITLESORT: "Opening, The",
  ARTIST: "Alice feat. Bob",
  TRACKNUMBER: "1",
  DISCNUMBER: "1",
  DISCSUBTITLE: "Side A",
  MUSICBRAINZ_TRACKID: TRACK_MBID,
  REPLAYGAIN_TRACK_GAIN: "-6.50 dB",
  REPLAYGAIN_TRACK_PEAK: "0.988000",
  REPLAYGAIN_ALBUM_GAIN: "-7.25 dB",
  REPLAYGAIN_ALBUM_PEAK: "1.000000",
})
await flac("Alice/The Duets/02 Solo.flac", 550, {
  ...duets,
  TITLE: "Solo",
  ARTIST: "Alice",
  TRACKNUMBER: "1",
  DISCNUMBER: "2",
  REPLAYGAIN_TRACK_GAIN: "-3.10 dB",
})
const hits = { ALBUM: "Hits", COMPILATION: "1", DATE: "2019" }
await flac("Hits/01 Carol.flac", 660, { ...hits, TITLE: "Carol Song", ARTIST: "Carol", TRACKNUMBER: "1" })
await flac("Hits/02 Dave.flac", 770, { ...hits, TITLE: "Dave Song", ARTIST: "Dave ft. Bob", TRACKNUMBER: "2" })

// biome-ignore lint/suspicious/noExplicitAny: answers are schema-checked in support.ts; the assertions read them loosely
type Json = Record<string, any>

let A: Auth
let appPassword = ""
/** Artist id by name, from getArtists. */
const artistIds = new Map<string, string>()
/** Album id by title. */
const albumIds = new Map<string, string>()
let arranged = false

const ref = (name: string) => ({ id: artistIds.get(name)!, name })
const songsOf = (album: Json) => new Map((album.song as Array<Json>).map((song) => [song.title as string, song]))
/** A successful answer's payloads, read loosely. */
const get = (method: string, params: Params = {}) => Effect.map(ok(method, params, A), (body) => body as Json)

/**
 * What the tests share, made by whichever test runs first (so that each also passes alone, with -t): alice (the
 * first account) with an app password, the library scanned, and the ids of its artists and albums by name.
 */
const arrange = Effect.gen(function* () {
  if (arranged) return
  const alice = yield* signUpFirstAdmin("alice")
  yield* scanNow()
  appPassword = ((yield* rawJson("POST", "/api/me/subsonic-password", {}, alice.token)).json as Json).password
  A = withToken("alice", appPassword)
  const artists = ((yield* get("getArtists")).artists.index as Array<Json>).flatMap(
    (index) => index.artist as Array<Json>,
  )
  for (const artist of artists) artistIds.set(artist.name, artist.id)
  const listed = (yield* get("getAlbumList2", { type: "alphabeticalByName", size: 10 })).albumList2.album as Array<Json>
  for (const entry of listed) albumIds.set(entry.name, entry.id)
  arranged = true
})
const album = (title: string) => Effect.map(get("getAlbum", { id: albumIds.get(title)! }), (body) => body.album as Json)
/** The XML answer's elements of this name. */
const xmlElements = (xml: string, name: string): Array<Element> => [
  ...(parseXml(xml).getElementsByTagName(name) as unknown as Iterable<Element>),
]
const attributesOf = (element: Element) =>
  Object.fromEntries(
    Array.from({ length: element.attributes.length }, (_, i) => element.attributes.item(i)!).map((a) => [
      a.name,
      a.value,
    ]),
  )
/** The `song` element of an XML getAlbum answer with this title. */
const xmlSong = (xml: string, title: string) => xmlElements(xml, "song").find((s) => s.getAttribute("title") === title)!
const childrenNamed = (element: Element, name: string) =>
  Array.from({ length: element.childNodes.length }, (_, i) => element.childNodes.item(i)).filter(
    (node): node is Element => node !== null && node.nodeType === 1 && (node as Element).tagName === name,
  )

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "opensubsonic fields",
  (it) => {
    it.scoped("getArtists lists featured guests with their counts", () =>
      Effect.gen(function* () {
        yield* arrange
        const artists = ((yield* get("getArtists")).artists.index as Array<Json>).flatMap(
          (index) => index.artist as Array<Json>,
        )
        expect(Object.fromEntries(artists.map((artist) => [artist.name, artist.id]))).toEqual(
          Object.fromEntries(artistIds),
        )
        // Every credited artist, the featured guest Bob included; albumCount counts albums where they are an
        // album artist (Bob, Carol and Dave have none: the compilation's album artist is Various Artists).
        expect(Object.fromEntries(artists.map((artist) => [artist.name, artist.albumCount]))).toEqual({
          Alice: 1,
          Bob: 0,
          Carol: 0,
          Dave: 0,
          "Various Artists": 1,
        })
        const indexed = ((yield* get("getIndexes")).indexes.index as Array<Json>).flatMap(
          (index) => index.artist as Array<Json>,
        )
        expect(indexed.map((artist) => artist.name).sort()).toEqual([
          "Alice",
          "Bob",
          "Carol",
          "Dave",
          "Various Artists",
        ])
        expect(indexed.find((artist) => artist.name === "Bob")!.id).toBe(artistIds.get("Bob"))

        const listed = (yield* get("getAlbumList2", { type: "alphabeticalByName", size: 10 })).albumList2
          .album as Array<Json>
        expect(listed.map((entry) => entry.name).sort()).toEqual(["Hits", "The Duets"])
        expect(Object.fromEntries(listed.map((entry) => [entry.name, entry.id]))).toEqual(Object.fromEntries(albumIds))

        // getArtist lists the albums where they are an album artist (Navidrome's answer): none for a guest.
        const bob = (yield* get("getArtist", { id: artistIds.get("Bob")! })).artist as Json
        expect(bob).toMatchObject({ name: "Bob", albumCount: 0, album: [] })
        const aliceArtist = (yield* get("getArtist", { id: artistIds.get("Alice")! })).artist as Json
        expect(aliceArtist.albumCount).toBe(1)
        expect((aliceArtist.album as Array<Json>).map((entry) => entry.name)).toEqual(["The Duets"])
        // The albums a guest appears on are in their directory.
        const directory = (yield* get("getMusicDirectory", { id: artistIds.get("Bob")! })).directory as Json
        expect((directory.child as Array<Json>).map((child) => child.title).sort()).toEqual(["Hits", "The Duets"])
      }),
    )

    it.scoped("children carry the OpenSubsonic artists, albumArtists, displayArtist and displayAlbumArtist", () =>
      Effect.gen(function* () {
        yield* arrange
        const duetsSongs = songsOf(yield* album("The Duets"))
        expect(duetsSongs.get("The Opening")).toMatchObject({
          artist: "Alice feat. Bob",
          artistId: artistIds.get("Alice"),
          artists: [ref("Alice"), ref("Bob")],
          displayArtist: "Alice feat. Bob",
          albumArtists: [ref("Alice")],
          displayAlbumArtist: "Alice",
        })
        expect(duetsSongs.get("Solo")).toMatchObject({
          artists: [ref("Alice")],
          displayArtist: "Alice",
          albumArtists: [ref("Alice")],
          displayAlbumArtist: "Alice",
        })
        // A compilation's songs: their own artists, the album's Various Artists.
        const dave = songsOf(yield* album("Hits")).get("Dave Song")!
        expect(dave).toMatchObject({
          artists: [ref("Dave"), ref("Bob")],
          displayArtist: "Dave ft. Bob",
          albumArtists: [ref("Various Artists")],
          displayAlbumArtist: "Various Artists",
        })
        // Every way a song is listed carries them (getSong, search3, getRandomSongs).
        expect((yield* get("getSong", { id: dave.id })).song).toMatchObject({ artists: dave.artists })
        const found = (yield* get("search3", { query: "dave song" })).searchResult3 as Json
        expect(found.song[0]).toMatchObject({ artists: dave.artists, albumArtists: dave.albumArtists })
        const random = (yield* get("getRandomSongs", { size: 10 })).randomSongs.song as Array<Json>
        expect(random.every((song) => Array.isArray(song.artists) && song.displayAlbumArtist !== undefined)).toBe(true)
        // Albums name their album artists too.
        const hits = (yield* get("getAlbumList2", { type: "alphabeticalByName", size: 10 })).albumList2
          .album as Array<Json>
        expect(hits.find((entry) => entry.name === "The Duets")).toMatchObject({
          artists: [ref("Alice")],
          displayArtist: "Alice",
        })

        // XML: repeated `artists` / `albumArtists` elements with id and name, the display texts as attributes.
        const xml = (yield* callXml("getAlbum", { id: albumIds.get("The Duets")! }, A)).text
        const opening = xmlSong(xml, "The Opening")
        expect(opening.getAttribute("displayArtist")).toBe("Alice feat. Bob")
        expect(opening.getAttribute("displayAlbumArtist")).toBe("Alice")
        expect(childrenNamed(opening, "artists").map(attributesOf)).toEqual([ref("Alice"), ref("Bob")])
        expect(childrenNamed(opening, "albumArtists").map(attributesOf)).toEqual([ref("Alice")])

        // Through a real client.
        const client = new SubsonicAPI({ url: yield* serverUrl, auth: { username: "alice", password: appPassword } })
        const song = (yield* Effect.promise(() => client.getSong({ id: dave.id }))).song
        expect(song.artists?.map((artist) => artist.name)).toEqual(["Dave", "Bob"])
        expect(song.displayAlbumArtist).toBe("Various Artists")
      }),
    )

    it.scoped("sortName and musicBrainzId", () =>
      Effect.gen(function* () {
        yield* arrange
        const duets = yield* album("The Duets")
        const songs = songsOf(duets)
        // A song: TITLESORT when tagged, else the title; its MusicBrainz recording id, else "".
        expect(songs.get("The Opening")).toMatchObject({ sortName: "Opening, The", musicBrainzId: TRACK_MBID })
        expect(songs.get("Solo")).toMatchObject({ sortName: "Solo", musicBrainzId: "" })
        // An album: the key album lists sort by (the leading article moved to the end, folded); its release id.
        expect(duets).toMatchObject({ sortName: "duets, the", musicBrainzId: ALBUM_MBID })
        expect(yield* album("Hits")).toMatchObject({ sortName: "hits", musicBrainzId: "" })
        // An artist: the sort name and MusicBrainz id, "" when there is none.
        const alice = (yield* get("getArtist", { id: artistIds.get("Alice")! })).artist as Json
        expect(alice).toMatchObject({ sortName: "Alice", musicBrainzId: ALICE_MBID })
        const bob = (yield* get("getArtist", { id: artistIds.get("Bob")! })).artist as Json
        expect(bob).toMatchObject({ sortName: "Bob", musicBrainzId: "" })
        const various = ((yield* get("getArtists")).artists.index as Array<Json>)
          .flatMap((index) => index.artist as Array<Json>)
          .find((artist) => artist.name === "Various Artists")!
        expect(various).toMatchObject({ sortName: "Various Artists", musicBrainzId: "" })

        const xml = (yield* callXml("getAlbum", { id: albumIds.get("The Duets")! }, A)).text
        expect(attributesOf(xmlElements(xml, "album")[0]!)).toMatchObject({
          sortName: "duets, the",
          musicBrainzId: ALBUM_MBID,
        })
        expect(attributesOf(xmlSong(xml, "Solo"))).toMatchObject({ sortName: "Solo", musicBrainzId: "" })
      }),
    )

    it.scoped("replayGain only with known values", () =>
      Effect.gen(function* () {
        yield* arrange
        const songs = songsOf(yield* album("The Duets"))
        expect(songs.get("The Opening")!.replayGain).toEqual({
          trackGain: -6.5,
          albumGain: -7.25,
          trackPeak: 0.988,
          albumPeak: 1,
        })
        expect(songs.get("Solo")!.replayGain).toEqual({ trackGain: -3.1 })
        // Untagged: the field is there (the server supports it) and empty.
        const carol = songsOf(yield* album("Hits")).get("Carol Song")!
        expect(carol.replayGain).toEqual({})

        const xml = (yield* callXml("getAlbum", { id: albumIds.get("The Duets")! }, A)).text
        expect(childrenNamed(xmlSong(xml, "The Opening"), "replayGain").map(attributesOf)).toEqual([
          { trackGain: "-6.5", albumGain: "-7.25", trackPeak: "0.988", albumPeak: "1" },
        ])
        expect(childrenNamed(xmlSong(xml, "Solo"), "replayGain").map(attributesOf)).toEqual([{ trackGain: "-3.1" }])
        const hitsXml = (yield* callXml("getAlbum", { id: albumIds.get("Hits")! }, A)).text
        expect(childrenNamed(xmlSong(hitsXml, "Carol Song"), "replayGain").map(attributesOf)).toEqual([{}])
      }),
    )

    it.scoped("albums carry discTitles, isCompilation and version", () =>
      Effect.gen(function* () {
        yield* arrange
        const duets = yield* album("The Duets")
        // Only the discs with a subtitle; the edition label from the release comment.
        expect(duets).toMatchObject({
          discTitles: [{ disc: 1, title: "Side A" }],
          isCompilation: false,
          version: "Deluxe Edition",
        })
        expect([...songsOf(duets).values()].map((song) => [song.title, song.discNumber])).toEqual([
          ["The Opening", 1],
          ["Solo", 2],
        ])
        const hits = yield* album("Hits")
        expect(hits).toMatchObject({ discTitles: [], isCompilation: true, version: "" })
        // A song without a disc number is on disc 1.
        expect(songsOf(hits).get("Carol Song")!.discNumber).toBe(1)

        // The same on every album entry: album lists, search3, an artist's albums, starred2.
        const listed = (yield* get("getAlbumList2", { type: "alphabeticalByName", size: 10 })).albumList2
          .album as Array<Json>
        const expected = {
          "The Duets": { discTitles: [{ disc: 1, title: "Side A" }], isCompilation: false, version: "Deluxe Edition" },
          Hits: { discTitles: [], isCompilation: true, version: "" },
        }
        for (const entry of listed) expect(entry).toMatchObject(expected[entry.name as keyof typeof expected])
        const found = (yield* get("search3", { query: "hits" })).searchResult3.album as Array<Json>
        expect(found[0]).toMatchObject({ name: "Hits", ...expected.Hits })
        const alice = (yield* get("getArtist", { id: artistIds.get("Alice")! })).artist as Json
        expect(alice.album[0]).toMatchObject(expected["The Duets"])
        yield* onceOk("star", { albumId: albumIds.get("The Duets")! }, A)
        const starred = (yield* get("getStarred2")).starred2.album as Array<Json>
        expect(starred[0]).toMatchObject(expected["The Duets"])

        // XML: `discTitles` elements, isCompilation and version as attributes.
        const xml = (yield* callXml("getAlbum", { id: albumIds.get("The Duets")! }, A)).text
        const element = xmlElements(xml, "album")[0]!
        expect(attributesOf(element)).toMatchObject({ isCompilation: "false", version: "Deluxe Edition" })
        expect(childrenNamed(element, "discTitles").map(attributesOf)).toEqual([{ disc: "1", title: "Side A" }])
        expect(attributesOf(xmlSong(xml, "Solo")).discNumber).toBe("2")
      }),
    )
  },
)
