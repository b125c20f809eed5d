/**
 * The library model of the contract ("Library model: artists, albums, discs, sort, search"), each rule over HTTP on
 * a real scanned library: real files tagged by the project's own writers (fixtures/tags.ts) in every format.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import type { TonearmClient } from "@tonearm/client-sdk"
import { type AlbumDetail, AlbumId, type AlbumRef, type Artist, ArtistId, searchKeyOf } from "@tonearm/core"
import { ConfigProvider, Effect } from "effect"
import { taggedFile } from "../../fixtures/synthetic.js"
import type { TagSet } from "../../fixtures/tags.js"
import type { AudioFormat } from "../../fixtures/types.js"
import { catalogConfig } from "../../src/config/TonearmConfig.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/** Writes each file (`Artist/Album/name.ext` → its tags; `v3:` before the name for ID3v2.3) into a new folder. */
const writeLibrary = async (files: Record<string, TagSet>): Promise<string> => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-model-"))
  for (const [name, tags] of Object.entries(files)) {
    const v3 = name.startsWith("v3:")
    const relative = v3 ? name.slice(3) : name
    const target = path.join(root, relative)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, await taggedFile(path.extname(relative).slice(1) as AudioFormat, tags, v3 ? 3 : 4))
  }
  return root
}

const ARTISTS = (...names: ReadonlyArray<string>) => names.map((name) => ["ARTISTS", name] as const)
const gain = (track: string, trackPeak: string, album: string, albumPeak: string) =>
  [
    ["REPLAYGAIN_TRACK_GAIN", track],
    ["REPLAYGAIN_TRACK_PEAK", trackPeak],
    ["REPLAYGAIN_ALBUM_GAIN", album],
    ["REPLAYGAIN_ALBUM_PEAK", albumPeak],
  ] as const
const MB = {
  album: "0a1b2c3d-0000-4000-8000-000000000001",
  deluxe: "0a1b2c3d-0000-4000-8000-000000000002",
  other: "0a1b2c3d-0000-4000-8000-000000000003",
  japan: "0a1b2c3d-0000-4000-8000-000000000004",
}

const root = await writeLibrary({
  // Credits: ARTISTS wins over the display text; feat./ft./featuring guests are featured; `; ` and ` / ` separate;
  // `AC/DC` is one artist (also in ID3v2.3, whose TPE1 music-metadata splits on "/").
  "Alice/Credits/01 One.mp3": {
    title: "One",
    artist: "Alice feat. Bob",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 1 },
    extra: ARTISTS("Alice", "Bob"),
  },
  "Alice/Credits/02 Two.flac": {
    title: "Two",
    artist: "Alice ft. Carol; Dave",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 2 },
  },
  "Alice/Credits/03 Three.m4a": {
    title: "Three",
    artist: "Alice",
    artistValues: ["Alice", "Erin"],
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 3 },
  },
  "Alice/Credits/04 Four.ogg": {
    title: "Four",
    artist: "Alice / Frank",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 4 },
  },
  "v3:Alice/Credits/05 Five.mp3": {
    title: "Five",
    artist: "AC/DC",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 5 },
  },
  "Alice/Credits/06 Six.opus": {
    title: "Six",
    artist: "AC/DC",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 6 },
  },
  "Alice/Credits/07 Seven.mp3": {
    title: "Seven",
    artist: "Alice FEATURING Bob",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 7 },
  },
  "Alice/Credits/08 Eight.wav": {
    title: "Eight",
    artist: "Alice & Bob",
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 8 },
    extra: ARTISTS("Alice", "Bob"),
  },
  // ID3v2.3 has no multi-value separator but NUL-separated values still are several (music-metadata says so).
  "v3:Alice/Credits/09 Nine.mp3": {
    title: "Nine",
    artist: "Alice",
    artistValues: ["Alice", "Gus"],
    albumArtist: "Alice",
    album: "Credits",
    track: { no: 9 },
  },
  // Album artists from ALBUMARTISTS.
  "Alice & Bob/Duets/01 Duet.flac": {
    title: "Duet",
    artist: "Alice & Bob",
    albumArtist: "Alice & Bob",
    album: "Duets",
    extra: [...ARTISTS("Alice", "Bob"), ["ALBUMARTISTS", "Alice"], ["ALBUMARTISTS", "Bob"]],
  },
  // The album-artist rule on untagged albums.
  "Gina/Solo/01 A.mp3": { title: "A", artist: "Gina", album: "Solo", track: { no: 1 } },
  "Gina/Solo/02 B.mp3": { title: "B", artist: "Gina", album: "Solo", track: { no: 2 } },
  "Gina/Solo/03 C.mp3": { title: "C", artist: "Gina feat. Hank", album: "Solo", track: { no: 3 } },
  "Gina/Solo/04 D.mp3": { title: "D", artist: "Gina", album: "Solo", track: { no: 4 } },
  "Mixed/Party/01.flac": { title: "P1", artist: "Ivy", album: "Party", track: { no: 1 } },
  "Mixed/Party/02.flac": { title: "P2", artist: "Ivy", album: "Party", track: { no: 2 } },
  "Mixed/Party/03.flac": { title: "P3", artist: "Jack", album: "Party", track: { no: 3 } },
  "Mixed/Party/04.flac": { title: "P4", artist: "Kim", album: "Party", track: { no: 4 } },
  "Mixed/Party/05.flac": { title: "P5", artist: "Lee", album: "Party", track: { no: 5 } },
  "Mixed/Half/01.m4a": { title: "H1", artist: "Ivy", album: "Half", track: { no: 1 } },
  "Mixed/Half/02.m4a": { title: "H2", artist: "Ivy feat. Jack", album: "Half", track: { no: 2 } },
  "Mixed/Half/03.m4a": { title: "H3", artist: "Kim", album: "Half", track: { no: 3 } },
  "Mixed/Half/04.m4a": { title: "H4", artist: "Lee", album: "Half", track: { no: 4 } },
  "Mixed/Split EP/01.mp3": { title: "S1", artist: "Ivy", albumArtist: "Jack", album: "Split EP", track: { no: 1 } },
  "Mixed/Split EP/02.mp3": { title: "S2", artist: "Kim", albumArtist: "Jack", album: "Split EP", track: { no: 2 } },
  "Mixed/Flagged/01.ogg": { title: "F1", artist: "Jack", album: "Flagged", compilation: true },
  "Mixed/Flagged/02.ogg": { title: "F2", artist: "Jack", album: "Flagged", compilation: true },
  // Discs: no disc number is disc 1; disc, track (missing last), title; subtitles from TSST / DISCSUBTITLE.
  "Mona/Discs/2-01.mp3": {
    title: "D2T1",
    artist: "Mona",
    albumArtist: "Mona",
    album: "Discs",
    disc: { no: 2 },
    track: { no: 1 },
    extra: [["DISCSUBTITLE", "The Sequel"]],
  },
  "Mona/Discs/02.mp3": { title: "Bravo", artist: "Mona", albumArtist: "Mona", album: "Discs", track: { no: 2 } },
  "Mona/Discs/1-01.flac": {
    title: "D1T1",
    artist: "Mona",
    albumArtist: "Mona",
    album: "Discs",
    disc: { no: 1 },
    track: { no: 1 },
  },
  "Mona/Discs/zeta.flac": { title: "Zeta", artist: "Mona", albumArtist: "Mona", album: "Discs" },
  "Mona/Discs/alpha.flac": { title: "Alpha", artist: "Mona", albumArtist: "Mona", album: "Discs", disc: { no: 1 } },
  "Mona/Discs/2-03.flac": {
    title: "D2T3",
    artist: "Mona",
    albumArtist: "Mona",
    album: "Discs",
    disc: { no: 2 },
    track: { no: 3 },
    extra: [["DISCSUBTITLE", "The Sequel"]],
  },
  // Editions: one title, different MusicBrainz releases, in two folders and in one.
  "Nora/Album/01.mp3": {
    title: "Standard",
    artist: "Nora",
    albumArtist: "Nora",
    album: "Album",
    date: "2001",
    mbids: { album: MB.album },
  },
  "Nora/Album (Deluxe)/01.flac": {
    title: "Deluxe",
    artist: "Nora",
    albumArtist: "Nora",
    album: "Album",
    date: "2011",
    mbids: { album: MB.deluxe },
    extra: [["MUSICBRAINZ_ALBUMCOMMENT", "Deluxe Edition"]],
  },
  "Nora/Other/01.m4a": {
    title: "Other One",
    artist: "Nora",
    albumArtist: "Nora",
    album: "Other",
    date: "2005",
    track: { no: 1 },
    mbids: { album: MB.other },
  },
  "Nora/Other/02.m4a": {
    title: "Other Two",
    artist: "Nora",
    albumArtist: "Nora",
    album: "Other",
    date: "2005",
    track: { no: 2 },
    mbids: { album: MB.japan },
    extra: [["MUSICBRAINZ_ALBUMCOMMENT", "Japan"]],
  },
  // Sort names: tags win, leading articles move to the end.
  "The Quiet Ones/The Aardvark/01.mp3": {
    title: "The End",
    artist: "The Quiet Ones",
    albumArtist: "The Quiet Ones",
    album: "The Aardvark",
    extra: [["TITLESORT", "End"]],
  },
  "The Quiet Ones/Aaron/01.flac": {
    title: "Aa",
    artist: "The Quiet Ones",
    albumArtist: "The Quiet Ones",
    album: "Aaron",
  },
  "The Quiet Ones/Zebra/01.m4a": {
    title: "Zz",
    artist: "The Quiet Ones",
    albumArtist: "The Quiet Ones",
    album: "Zebra",
    extra: [["ALBUMSORT", "AAA"]],
  },
  "Alpha Zed/Zed Album/01.opus": {
    title: "Zed",
    artist: "Alpha Zed",
    albumArtist: "Alpha Zed",
    album: "Zed Album",
    extra: [
      ["ARTISTSORT", "Zed, Alpha"],
      ["ALBUMARTISTSORT", "Zed, Alpha"],
    ],
  },
  "Los Ríos/Agua/01.ogg": { title: "Agua", artist: "Los Ríos", albumArtist: "Los Ríos", album: "Agua" },
  // ReplayGain as tagged, per format; Opus R128 (Q7.8 dB against -23 LUFS) converted to -18 LUFS.
  "Rita/Loudness/01.mp3": {
    title: "Id3 Gain",
    artist: "Rita",
    albumArtist: "Rita",
    album: "Loudness",
    track: { no: 1 },
    extra: gain("-6.54 dB", "0.988831", "-7.10 dB", "1.000000"),
  },
  "Rita/Loudness/02.flac": {
    title: "Vorbis Gain",
    artist: "Rita",
    albumArtist: "Rita",
    album: "Loudness",
    track: { no: 2 },
    extra: gain("+1.20 dB", "0.5", "-0.50 dB", "0.75"),
  },
  "Rita/Loudness/03.m4a": {
    title: "Mp4 Gain",
    artist: "Rita",
    albumArtist: "Rita",
    album: "Loudness",
    track: { no: 3 },
    extra: gain("-3.00 dB", "0.9", "-4.00 dB", "0.95"),
  },
  "Rita/Loudness/04.opus": {
    title: "Opus Gain",
    artist: "Rita",
    albumArtist: "Rita",
    album: "Loudness",
    track: { no: 4 },
    extra: [
      ["R128_TRACK_GAIN", "-2560"],
      ["R128_ALBUM_GAIN", "256"],
    ],
  },
  "Rita/Loudness/05.ogg": {
    title: "No Gain",
    artist: "Rita",
    albumArtist: "Rita",
    album: "Loudness",
    track: { no: 5 },
  },
})

interface Library {
  readonly api: TonearmClient
  readonly token: string
  readonly albums: ReadonlyArray<AlbumRef>
  readonly artists: ReadonlyArray<Artist>
}

let library: Library | undefined
/** Signs up, scans and lists everything once; every test starts from it. */
const ready = Effect.suspend(() =>
  library !== undefined
    ? Effect.succeed(library)
    : Effect.gen(function* () {
        const session = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const albums = yield* session.client.library.albums({ urlParams: { limit: 500 } })
        const artists = yield* session.client.library.artists({ urlParams: { limit: 500 } })
        library = { api: session.client, token: session.token, albums: albums.items, artists: artists.items }
        return library
      }),
)

const artistNamed = (lib: Library, name: string) => {
  const found = lib.artists.find((artist) => artist.name === name)
  if (found === undefined) throw new Error(`no artist ${name}: ${lib.artists.map((a) => a.name).join(", ")}`)
  return found
}
const albumsTitled = (lib: Library, title: string) => lib.albums.filter((album) => album.title === title)
const detailOf = (lib: Library, title: string) => {
  const [album, ...more] = albumsTitled(lib, title)
  if (album === undefined || more.length > 0) throw new Error(`not one album titled ${title}`)
  return lib.api.library.album({ path: { id: album.id } })
}
const trackTitled = (detail: AlbumDetail, title: string) => detail.tracks.find((track) => track.title === title)!
const credits = (detail: AlbumDetail, title: string) =>
  trackTitled(detail, title).artists.map((artist) => [artist.name, artist.role])
const titles = (albums: ReadonlyArray<{ readonly title: string }>) => albums.map((album) => album.title).sort()

describe("catalogue settings", () => {
  it.effect("TONEARM_ARTIST_SEPARATORS is a JSON array of strings and TONEARM_SORT_ARTICLES words; both default", () =>
    Effect.gen(function* () {
      const read = (entries: ReadonlyArray<readonly [string, string]>) =>
        Effect.withConfigProvider(catalogConfig, ConfigProvider.fromMap(new Map(entries)))
      const defaults = yield* read([])
      expect(defaults.artistSeparators).toEqual([" feat. ", " ft. ", " featuring ", " / ", "; "])
      expect(defaults.sortArticles).toContain("The")
      const set = yield* read([
        ["TONEARM_ARTIST_SEPARATORS", '[" & ", " with "]'],
        ["TONEARM_SORT_ARTICLES", "Die  Der"],
      ])
      expect(set).toEqual({ artistSeparators: [" & ", " with "], sortArticles: ["Die", "Der"] })
      const bad = yield* Effect.either(read([["TONEARM_ARTIST_SEPARATORS", "feat."]]))
      expect(bad._tag).toBe("Left")
    }),
  )
})

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "library model",
  (it) => {
    it.effect("artist credits: ARTISTS wins, feat. guests are featured, AC/DC is one artist", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const detail = yield* detailOf(lib, "Credits")
        expect(credits(detail, "One")).toEqual([
          ["Alice", "main"],
          ["Bob", "featured"],
        ])
        expect(credits(detail, "Two")).toEqual([
          ["Alice", "main"],
          ["Carol", "featured"],
          ["Dave", "featured"],
        ])
        expect(credits(detail, "Three")).toEqual([
          ["Alice", "main"],
          ["Erin", "main"],
        ])
        expect(credits(detail, "Four")).toEqual([
          ["Alice", "main"],
          ["Frank", "main"],
        ])
        expect(credits(detail, "Five")).toEqual([["AC/DC", "main"]])
        expect(credits(detail, "Six")).toEqual([["AC/DC", "main"]])
        expect(credits(detail, "Nine")).toEqual([
          ["Alice", "main"],
          ["Gus", "main"],
        ])
        // The separators match in any letter case; the display text stays as tagged.
        expect(credits(detail, "Seven")).toEqual([
          ["Alice", "main"],
          ["Bob", "featured"],
        ])
        expect(trackTitled(detail, "Seven").artist_name).toBe("Alice FEATURING Bob")
        // ARTISTS wins: `Alice & Bob` credits two main artists, and reads as tagged.
        expect(credits(detail, "Eight")).toEqual([
          ["Alice", "main"],
          ["Bob", "main"],
        ])
        expect(trackTitled(detail, "Eight").artist_name).toBe("Alice & Bob")
        // artist_id is the first main artist; one name is one artist everywhere.
        const alice = artistNamed(lib, "Alice")
        const bob = artistNamed(lib, "Bob")
        for (const track of detail.tracks.filter((track) => !["Five", "Six"].includes(track.title))) {
          expect(track.artist_id).toBe(alice.id)
        }
        expect(trackTitled(detail, "One").artist_name).toBe("Alice feat. Bob")
        expect(trackTitled(detail, "One").artists.map((artist) => artist.id)).toEqual([alice.id, bob.id])
        expect(trackTitled(detail, "Seven").artists[1]!.id).toBe(bob.id)
        expect(lib.artists.filter((artist) => /feat|ft\.|featuring|AC$|^DC$/i.test(artist.name))).toEqual([])
        // ALBUMARTISTS: the album artists in order; the album reads as tagged.
        const duets = yield* detailOf(lib, "Duets")
        expect(duets.artists.map((artist) => [artist.id, artist.name])).toEqual([
          [alice.id, "Alice"],
          [bob.id, "Bob"],
        ])
        expect(duets.artist_name).toBe("Alice & Bob")
        expect(duets.artist_id).toBe(alice.id)
        expect(albumsTitled(lib, "Duets")[0]!.artists.map((artist) => artist.name)).toEqual(["Alice", "Bob"])
      }),
    )

    it.effect(
      "album artist rule: an untagged album with one feat. guest is the artist's own album, not Various Artists",
      () =>
        Effect.gen(function* () {
          const lib = yield* ready
          const [solo] = albumsTitled(lib, "Solo")
          expect(solo!.artist_name).toBe("Gina")
          expect(solo!.artists.map((artist) => artist.name)).toEqual(["Gina"])
          expect(solo!.artist_id).toBe(artistNamed(lib, "Gina").id)
          const gina = yield* lib.api.library.artist({ path: { id: artistNamed(lib, "Gina").id } })
          expect(titles(gina.albums)).toEqual(["Solo"])
          expect(gina.appears_on).toEqual([])
        }),
    )

    it.effect("album artist rule: no main artist on half the tracks is Various Artists", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const artistOf = (title: string) => albumsTitled(lib, title)[0]!.artist_name
        // Ivy is main on 2 of 5 tracks: Various Artists; on 2 of 4 (once with a guest): hers.
        expect(artistOf("Party")).toBe("Various Artists")
        expect(artistOf("Half")).toBe("Ivy")
        // The album-artist tag wins over the tracks; the compilation flag wins over a majority.
        expect(artistOf("Split EP")).toBe("Jack")
        expect(artistOf("Flagged")).toBe("Various Artists")
        const various = artistNamed(lib, "Various Artists")
        expect(albumsTitled(lib, "Party")[0]!.artists).toEqual([{ id: various.id, name: "Various Artists" }])
        // Track artists keep their own rows and credits on a compilation.
        const party = yield* detailOf(lib, "Party")
        expect(party.tracks.map((track) => track.artist_name)).toEqual(["Ivy", "Ivy", "Jack", "Kim", "Lee"])
      }),
    )

    it.effect("discs: a track with no disc number is on disc 1; order is disc, track (missing last), title", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const discs = yield* detailOf(lib, "Discs")
        expect(discs.tracks.map((track) => [track.title, track.disc_number, track.track_number])).toEqual([
          ["D1T1", 1, 1],
          ["Bravo", 1, 2],
          ["Alpha", 1, null],
          ["Zeta", 1, null],
          ["D2T1", 2, 1],
          ["D2T3", 2, 3],
        ])
      }),
    )

    it.effect("discs: AlbumDetail.discs carries subtitles", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        expect((yield* detailOf(lib, "Discs")).discs).toEqual([
          { number: 1, subtitle: null },
          { number: 2, subtitle: "The Sequel" },
        ])
        // An album without disc numbers is one disc 1.
        expect((yield* detailOf(lib, "Solo")).discs).toEqual([{ number: 1, subtitle: null }])
      }),
    )

    it.effect("editions: different MusicBrainz release ids never share an album; version tells them apart", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const editions = (title: string) =>
          albumsTitled(lib, title)
            .map((album) => [album.mbid, album.version, album.year, album.track_count])
            .sort()
        // Two folders: the release comment, else the year.
        expect(editions("Album")).toEqual([
          [MB.album, "2001", 2001, 1],
          [MB.deluxe, "Deluxe Edition", 2011, 1],
        ])
        // One folder, one year, two releases.
        expect(editions("Other")).toEqual([
          [MB.other, "2005", 2005, 1],
          [MB.japan, "Japan", 2005, 1],
        ])
        // An album with no other edition needs no label.
        expect(albumsTitled(lib, "Solo")[0]!.version).toBeNull()
      }),
    )

    it.effect("sort names: sort tags win; a leading article moves to the end; the article list is a setting", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        expect(artistNamed(lib, "The Quiet Ones").sort_name).toBe("Quiet Ones, The")
        expect(artistNamed(lib, "Los Ríos").sort_name).toBe("Ríos, Los")
        expect(artistNamed(lib, "Alpha Zed").sort_name).toBe("Zed, Alpha")
        expect(artistNamed(lib, "Alice").sort_name).toBe("Alice")
        // Albums by title follow ALBUMSORT, else the title less its article: Zebra (AAA), The Aardvark, Aaron.
        const byTitle = yield* lib.api.library.albums({ urlParams: { sort: "title", limit: 500 } })
        const order = byTitle.items.map((album) => album.title)
        expect(order.filter((title) => ["Zebra", "The Aardvark", "Aaron"].includes(title))).toEqual([
          "Zebra",
          "The Aardvark",
          "Aaron",
        ])
        // TITLESORT is kept for the track (clients sort by it; it is not a wire field).
        const sql = yield* SqlClient.SqlClient
        const [end] = yield* sql<{ sort_title: string | null }>`SELECT sort_title FROM tracks WHERE title = 'The End'`
        expect(end?.sort_title).toBe("End")
      }),
    )

    it.effect("replay gain: track/album gain and peak from ID3, Vorbis, MP4 and Opus R128 (-18 LUFS reference)", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const loudness = yield* detailOf(lib, "Loudness")
        const gainOf = (title: string) => ({ ...trackTitled(loudness, title).replay_gain })
        expect(gainOf("Id3 Gain")).toEqual({
          track_gain_db: -6.54,
          track_peak: 0.988831,
          album_gain_db: -7.1,
          album_peak: 1,
        })
        expect(gainOf("Vorbis Gain")).toEqual({
          track_gain_db: 1.2,
          track_peak: 0.5,
          album_gain_db: -0.5,
          album_peak: 0.75,
        })
        expect(gainOf("Mp4 Gain")).toEqual({ track_gain_db: -3, track_peak: 0.9, album_gain_db: -4, album_peak: 0.95 })
        // -2560/256 = -10 dB and 256/256 = +1 dB against -23 LUFS are -5 dB and +6 dB against -18 LUFS.
        expect(gainOf("Opus Gain")).toEqual({ track_gain_db: -5, track_peak: null, album_gain_db: 6, album_peak: null })
        expect(gainOf("No Gain")).toEqual({
          track_gain_db: null,
          track_peak: null,
          album_gain_db: null,
          album_peak: null,
        })
      }),
    )

    it.effect(
      "artist pages: albums are where they are album artist, appears_on the other albums crediting them; GET /api/library/albums?artist_id&role pages to the end",
      () =>
        Effect.gen(function* () {
          const lib = yield* ready
          const page = (name: string) => lib.api.library.artist({ path: { id: artistNamed(lib, name).id } })
          const expectPage = (name: string, albums: ReadonlyArray<string>, appearsOn: ReadonlyArray<string>) =>
            Effect.gen(function* () {
              const detail = yield* page(name)
              expect({ name, albums: titles(detail.albums), appears_on: titles(detail.appears_on) }).toEqual({
                name,
                albums: [...albums].sort(),
                appears_on: [...appearsOn].sort(),
              })
              expect([detail.albums_total, detail.appears_on_total]).toEqual([albums.length, appearsOn.length])
            })
          yield* expectPage("Alice", ["Credits", "Duets"], [])
          yield* expectPage("Bob", ["Duets"], ["Credits"])
          yield* expectPage("Hank", [], ["Solo"])
          yield* expectPage("Ivy", ["Half"], ["Party", "Split EP"])
          yield* expectPage("Jack", ["Split EP"], ["Flagged", "Half", "Party"])
          yield* expectPage("Various Artists", ["Flagged", "Party"], [])
          // Paged one album at a time to the end, both roles; album_artist is the default.
          for (const [name, role, expected] of [
            ["Jack", "appears_on", ["Flagged", "Half", "Party"]],
            ["Jack", "album_artist", ["Split EP"]],
            ["Alice", undefined, ["Credits", "Duets"]],
            ["Ivy", "appears_on", ["Party", "Split EP"]],
          ] as const) {
            const seen: Array<string> = []
            for (let offset = 0; ; offset++) {
              const onePage = yield* lib.api.library.albums({
                urlParams: { artist_id: artistNamed(lib, name).id, ...(role ? { role } : {}), offset, limit: 1 },
              })
              expect(onePage.total).toBe(expected.length)
              if (onePage.items.length === 0) break
              seen.push(...onePage.items.map((album) => album.title))
            }
            expect({ name, role, seen: seen.sort() }).toEqual({ name, role, seen: [...expected].sort() })
          }
          // An unknown artist has an empty page.
          const none = yield* lib.api.library.albums({
            urlParams: { artist_id: ArtistId.make("00000000-0000-4000-8000-00000000beef") },
          })
          expect([none.items, none.total]).toEqual([[], 0])
        }),
    )

    it.effect("artist pages: artist_id that is not a uuid and an unknown role are 400 invalid_request", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const notUuid = yield* raw("GET", "/api/library/albums?artist_id=alice", { token: lib.token })
        expect(notUuid.status).toBe(400)
        expect(notUuid.json).toMatchObject({ error: { code: "invalid_request" } })
        const alice = artistNamed(lib, "Alice").id
        const badRole = yield* raw("GET", `/api/library/albums?artist_id=${alice}&role=guest`, { token: lib.token })
        expect(badRole.status).toBe(400)
        expect(badRole.json).toMatchObject({ error: { code: "invalid_request" } })
        const good = yield* raw("GET", `/api/library/albums?artist_id=${alice}&role=appears_on`, { token: lib.token })
        expect(good.status).toBe(200)
      }),
    )

    it.effect("every credited artist has a row, a page and counts", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const tracks = new Map<string, Set<string>>()
        const albums = new Map<string, Set<string>>()
        const add = (map: Map<string, Set<string>>, artist: string, item: string) =>
          map.set(artist, (map.get(artist) ?? new Set()).add(item))
        for (const ref of lib.albums) {
          const detail = yield* lib.api.library.album({ path: { id: AlbumId.make(ref.id) } })
          for (const artist of detail.artists) add(albums, artist.id, detail.id)
          for (const track of detail.tracks) for (const artist of track.artists) add(tracks, artist.id, track.id)
        }
        const credited = new Set([...tracks.keys(), ...albums.keys()])
        expect(credited.size).toBe(21)
        expect(new Set(lib.artists.map((artist) => artist.id))).toEqual(credited)
        for (const id of credited) {
          const detail = yield* lib.api.library.artist({ path: { id: ArtistId.make(id) } })
          expect({ name: detail.name, tracks: detail.track_count, albums: detail.album_count }).toEqual({
            name: detail.name,
            tracks: tracks.get(id)?.size ?? 0,
            albums: albums.get(id)?.size ?? 0,
          })
        }
        // A featured guest with no album of their own still has a page that lists where they appear.
        const carol = yield* lib.api.library.artist({ path: { id: artistNamed(lib, "Carol").id } })
        expect([carol.track_count, carol.album_count, titles(carol.appears_on)]).toEqual([1, 0, ["Credits"]])
      }),
    )

    it.effect("GET /api/library/artists lists artists A–Z by sort name, paged", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        const all: Array<Artist> = []
        for (let offset = 0; ; offset += 4) {
          const page = yield* lib.api.library.artists({ urlParams: { offset, limit: 4 } })
          expect([page.offset, page.limit, page.total]).toEqual([offset, 4, lib.artists.length])
          if (page.items.length === 0) break
          all.push(...page.items)
        }
        expect(all.map((artist) => artist.id)).toEqual(lib.artists.map((artist) => artist.id))
        const key = (artist: Artist) => searchKeyOf(artist.sort_name)
        const sorted = [...all].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : 1))
        expect(all.map((artist) => artist.name)).toEqual(sorted.map((artist) => artist.name))
        const names = all.map((artist) => artist.name)
        // "The Quiet Ones" files under Q, "Alpha Zed" under Z (its sort tag).
        expect(names.indexOf("The Quiet Ones")).toBeGreaterThan(names.indexOf("Nora"))
        expect(names.indexOf("The Quiet Ones")).toBeLessThan(names.indexOf("Rita"))
        expect(names.at(-1)).toBe("Alpha Zed")
        // The limit is clamped like the album list's.
        expect((yield* lib.api.library.artists({ urlParams: { limit: 100_000 } })).limit).toBe(500)
      }),
    )

    it.effect("sync upserts carry the credits", () =>
      Effect.gen(function* () {
        const lib = yield* ready
        type Upserts = {
          tracks: Array<{
            title: string
            artists: Array<{ id: string; name: string; role: string }>
            replay_gain: object
          }>
          albums: Array<{ title: string; artists: Array<{ id: string; name: string }>; version: string | null }>
          artists: Array<{ id: string; name: string; sort_name: string }>
        }
        const tracks: Upserts["tracks"] = []
        const albums: Upserts["albums"] = []
        const artists: Upserts["artists"] = []
        let cursor: string | undefined
        for (;;) {
          const response = yield* raw(
            "GET",
            `/api/library/sync${cursor === undefined ? "" : `?cursor=${encodeURIComponent(cursor)}`}`,
            { token: lib.token },
          )
          expect(response.status).toBe(200)
          const page = response.json as { cursor: string; has_more: boolean; upserts: Upserts }
          tracks.push(...page.upserts.tracks)
          albums.push(...page.upserts.albums)
          artists.push(...page.upserts.artists)
          cursor = page.cursor
          if (!page.has_more) break
        }
        const alice = artistNamed(lib, "Alice")
        const bob = artistNamed(lib, "Bob")
        expect(tracks.find((track) => track.title === "One")?.artists).toEqual([
          { id: alice.id, name: "Alice", role: "main" },
          { id: bob.id, name: "Bob", role: "featured" },
        ])
        expect(tracks.find((track) => track.title === "Id3 Gain")?.replay_gain).toEqual({
          track_gain_db: -6.54,
          track_peak: 0.988831,
          album_gain_db: -7.1,
          album_peak: 1,
        })
        expect(albums.find((album) => album.title === "Duets")?.artists).toEqual([
          { id: alice.id, name: "Alice" },
          { id: bob.id, name: "Bob" },
        ])
        expect(albums.filter((album) => album.title === "Album").map((album) => album.version)).toEqual(
          expect.arrayContaining(["2001", "Deluxe Edition"]),
        )
        // Every credited artist travels, featured guests included, with their sort names.
        expect(artists.map((artist) => artist.name)).toEqual(expect.arrayContaining(["Bob", "Carol", "Dave", "Hank"]))
        expect(artists.find((artist) => artist.name === "The Quiet Ones")?.sort_name).toBe("Quiet Ones, The")
      }),
    )
  },
)

// ---- the same rules under other settings: the article and separator lists are the operator's ----

const configured = await writeLibrary({
  "Die Band/Eins/01.flac": { title: "Eins", artist: "Die Band", albumArtist: "Die Band", album: "Eins" },
  "The Others/Zwei/01.mp3": { title: "Zwei", artist: "The Others", albumArtist: "The Others", album: "Zwei" },
  "Xena/Drei/01.ogg": { title: "Drei", artist: "Xena & Yuri", albumArtist: "Xena", album: "Drei", track: { no: 1 } },
  "Xena/Drei/02.ogg": { title: "Vier", artist: "Xena feat. Zoe", albumArtist: "Xena", album: "Drei", track: { no: 2 } },
})

layer(TestServerLive({ libraryDir: configured, catalog: { artistSeparators: [" & "], sortArticles: ["Die"] } }), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("library model under other settings", (it) => {
  it.effect("sort names: the article list is a setting; so is the separator list", () =>
    Effect.gen(function* () {
      const session = yield* signUpFirstAdmin("admin")
      yield* scanNow()
      const api = session.client
      const artists = (yield* api.library.artists({ urlParams: { limit: 500 } })).items
      const sortOf = (name: string) => artists.find((artist) => artist.name === name)?.sort_name
      expect(sortOf("Die Band")).toBe("Band, Die")
      expect(sortOf("The Others")).toBe("The Others")
      const albums = (yield* api.library.albums({ urlParams: { limit: 500 } })).items
      const drei = yield* api.library.album({ path: { id: albums.find((album) => album.title === "Drei")!.id } })
      expect(drei.tracks.map((track) => track.artists.map((artist) => [artist.name, artist.role]))).toEqual([
        [
          ["Xena", "main"],
          ["Yuri", "main"],
        ],
        [["Xena feat. Zoe", "main"]],
      ])
    }),
  )
})
