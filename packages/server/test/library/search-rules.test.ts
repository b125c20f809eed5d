import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import type { SearchResult } from "@tonearm/core"
import { Effect } from "effect"
import { ffmpeg, sineInput } from "../../fixtures/ffmpeg.js"
import { id3v2, type TagSet } from "../../fixtures/tags.js"
import { ok, withPassword } from "../subsonic/support.js"
import { PASSWORD, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

// ---- a small library of real MP3s whose tags are written here (contract "Library model", Search) ----

const outside = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-search-bare-"))
const bareMp3 = path.join(outside, "bare.mp3")
await ffmpeg([...sineInput(1, 440), "-c:a", "libmp3lame", "-id3v2_version", "0", "-write_id3v1", "0", bareMp3])
const bare = fs.readFileSync(bareMp3)

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-search-"))
let fileNumber = 0
const add = (folder: string, tags: TagSet) => {
  fileNumber++
  const target = path.join(root, folder, `${String(fileNumber).padStart(2, "0")}.mp3`)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.writeFileSync(target, Buffer.concat([id3v2(tags), bare]))
}
const album = (folder: string, artist: string, title: string, tracks: ReadonlyArray<string | [string, string]>) =>
  tracks.forEach((track, index) => {
    const [trackTitle, trackArtist] = typeof track === "string" ? [track, artist] : track
    add(folder, { title: trackTitle, artist: trackArtist, albumArtist: artist, album: title, track: { no: index + 1 } })
  })

album("Muse/The Resistance", "Muse", "The Resistance", ["Uprising", "Resistance", "Undisclosed Desires"])
album("Muse/Absolution", "Muse", "Absolution", ["Hysteria"])
album("Beth Hart/Don't Explain", "Beth Hart", "Don't Explain", [
  ["Sinner's Prayer", "Beth Hart feat. Joe Bonamassa"],
  "Don't Explain",
])
album("ACDC/Back in Black", "AC/DC", "Back in Black", ["Back in Black", "Hells Bells"])
album("Beyonce/Dangerously in Love", "Beyoncé", "Dangerously in Love", ["Crazy in Love"])
album("Velvet/Inside", "Velvet", "Inside", ["Inside Lovers"])
// Ranking: "harbor" equals one title, starts two (of artists with 1 and 3 tracks), is a later word of one.
album("Lantern Folk/Lamps", "Lantern Folk", "Lamps", ["Harbor"])
album("Quiet Coast/Coastal", "Quiet Coast", "Coastal", ["Night Harbor", "Salt", "Harbor Lights"])
album("Pier Band/Piers", "Pier Band", "Piers", ["Harbor Bells"])

// biome-ignore lint/suspicious/noExplicitAny: Subsonic answers are schema-checked in support.ts; read loosely here
type Json = Record<string, any>

const titles = (found: SearchResult) => ({
  artists: found.artists.map((artist) => artist.name),
  albums: found.albums.map((album) => album.title),
  tracks: found.tracks.map((track) => track.title),
})

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "search rules (contract Library model, Search)",
  (it) => {
    let admin: SignedIn
    const search = (q: string, limit?: number) =>
      Effect.map(admin.client.library.search({ urlParams: limit === undefined ? { q } : { q, limit } }), titles)

    it.effect("search: every word must match some field (artist + title)", () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        const scanned = yield* scanNow()
        expect(scanned.errors).toBe(0)
        // "muse uprising": nothing matched before (the artist is no field of the old title key).
        expect(yield* search("muse uprising")).toEqual({ artists: [], albums: [], tracks: ["Uprising"] })
        expect((yield* search("uprising muse")).tracks).toEqual(["Uprising"])
        expect((yield* search("muse resistance")).albums).toEqual(["The Resistance"])
        expect((yield* search("muse resistance")).tracks).toEqual(["Resistance", "Undisclosed Desires", "Uprising"])
        // A featured artist is a field of the track too; the other track of the album has no "prayer".
        expect((yield* search("bonamassa prayer")).tracks).toEqual(["Sinner's Prayer"])
        // Every word: Muse's other tracks and albums have no "hysteria".
        expect(yield* search("muse hysteria")).toEqual({ artists: [], albums: [], tracks: ["Hysteria"] })
      }),
    )

    it.effect(
      "search: case, accents and punctuation are ignored (sinners → Sinner's, dont → Don't, ac dc/acdc → AC/DC)",
      () =>
        Effect.gen(function* () {
          expect((yield* search("sinners")).tracks).toEqual(["Sinner's Prayer"])
          expect((yield* search("SINNER'S")).tracks).toEqual(["Sinner's Prayer"])
          expect(yield* search("dont explain")).toEqual({
            artists: [],
            albums: ["Don't Explain"],
            tracks: ["Don't Explain", "Sinner's Prayer"],
          })
          for (const q of ["ac dc", "acdc", "AC/DC", "Ac-Dc"]) {
            const found = yield* search(q)
            expect({ q, artists: found.artists }).toEqual({ q, artists: ["AC/DC"] })
            expect({ q, albums: found.albums }).toEqual({ q, albums: ["Back in Black"] })
            expect({ q, tracks: found.tracks }).toEqual({ q, tracks: ["Back in Black", "Hells Bells"] })
          }
          expect((yield* search("beyonce")).artists).toEqual(["Beyoncé"])
          expect((yield* search("BEYONCÉ crazy")).tracks).toEqual(["Crazy in Love"])
        }),
    )

    it.effect("search: the last word matches as a prefix", () =>
      Effect.gen(function* () {
        expect((yield* search("muse upri")).tracks).toEqual(["Uprising"])
        expect((yield* search("hyst")).tracks).toEqual(["Hysteria"])
        expect((yield* search("beth h")).artists).toEqual(["Beth Hart"])
        // Only the last: "in" is a whole word of "Crazy in Love", and only starts "Inside Lovers".
        expect(yield* search("in lo")).toEqual({
          artists: [],
          albums: ["Dangerously in Love"],
          tracks: ["Crazy in Love"],
        })
        // As the last word, a prefix: "Inside Lovers" starts with it (all-prefix), the others have the word.
        expect((yield* search("in")).tracks).toEqual(["Inside Lovers", "Back in Black", "Hells Bells", "Crazy in Love"])
      }),
    )

    it.effect("search: an artist's name finds their albums and tracks", () =>
      Effect.gen(function* () {
        expect(yield* search("muse")).toEqual({
          artists: ["Muse"],
          albums: ["Absolution", "The Resistance"],
          tracks: ["Hysteria", "Resistance", "Undisclosed Desires", "Uprising"],
        })
        expect(yield* search("beth hart")).toEqual({
          artists: ["Beth Hart"],
          albums: ["Don't Explain"],
          tracks: ["Don't Explain", "Sinner's Prayer"],
        })
        // A featured artist finds the tracks that credit them (not the album: they are no album artist).
        expect(yield* search("joe bonamassa")).toEqual({
          artists: ["Joe Bonamassa"],
          albums: [],
          tracks: ["Sinner's Prayer"],
        })
      }),
    )

    it.effect("search: ranking — whole-field equal, then all-prefix, then the rest", () =>
      Effect.gen(function* () {
        // Harbor equals a title (Lantern Folk: 1 track); Harbor Lights (Quiet Coast: 3 tracks) and Harbor Bells (Pier
        // Band: 1 track) start with the query, most popular artist first; Night Harbor (3 tracks) only has the word.
        expect((yield* search("harbor")).tracks).toEqual(["Harbor", "Harbor Lights", "Harbor Bells", "Night Harbor"])
        expect((yield* search("harbor", 2)).tracks).toEqual(["Harbor", "Harbor Lights"])
        // The whole query against a whole field, however it is spaced or punctuated.
        expect((yield* search("back in black")).tracks).toEqual(["Back in Black", "Hells Bells"])
        expect((yield* search("back in bl")).tracks).toEqual(["Back in Black", "Hells Bells"])
      }),
    )

    it.effect("search: a typo finds the closest items by trigram similarity", () =>
      Effect.gen(function* () {
        const found = yield* search("beyonse")
        expect(found.artists[0]).toBe("Beyoncé")
        expect(found.albums[0]).toBe("Dangerously in Love")
        expect(found.tracks[0]).toBe("Crazy in Love")
        expect((yield* search("hysterai")).tracks[0]).toBe("Hysteria")
        // Only when nothing matches: a query with matches gets its matches alone.
        expect((yield* search("beyonce")).tracks).toEqual(["Crazy in Love"])
        // Nothing close: nothing.
        expect(yield* search("qqqqzzzz")).toEqual({ artists: [], albums: [], tracks: [] })
        // Fewer than SEARCH_CLOSEST_MIN_LETTERS letters: no closest items (their few trigrams start most names).
        expect(yield* search("hyx")).toEqual({ artists: [], albums: [], tracks: [] })
        // Nothing but punctuation: no words, no search.
        expect(yield* search("'/-")).toEqual({ artists: [], albums: [], tracks: [] })
      }),
    )

    it.effect("search: Subsonic search3 follows the same rule, each kind paged by its own offset and count", () =>
      Effect.gen(function* () {
        const auth = withPassword("admin", PASSWORD)
        const search3 = (params: Record<string, string | number>) =>
          Effect.map(ok("search3", params, auth), (body) => body.searchResult3 as Json)
        const names = (items: ReadonlyArray<Json> | undefined) => (items ?? []).map((item) => item.title ?? item.name)
        const uprising = yield* search3({ query: "muse uprising" })
        expect(names(uprising.song)).toEqual(["Uprising"])
        expect(names(uprising.artist)).toEqual([])
        const acdc = yield* search3({ query: "acdc" })
        expect(names(acdc.artist)).toEqual(["AC/DC"])
        expect(names(acdc.album)).toEqual(["Back in Black"])
        expect(names(acdc.song)).toEqual(["Back in Black", "Hells Bells"])
        expect(names((yield* search3({ query: "sinners" })).song)).toEqual(["Sinner's Prayer"])
        // Offsets and counts per kind, in the rule's order.
        const muse = yield* search3({ query: "muse" })
        expect(names(muse.song)).toEqual(["Hysteria", "Resistance", "Undisclosed Desires", "Uprising"])
        const paged = yield* search3({ query: "muse", songOffset: 1, songCount: 2, albumCount: 0, artistOffset: 1 })
        expect(names(paged.song)).toEqual(["Resistance", "Undisclosed Desires"])
        expect(names(paged.album)).toEqual([])
        expect(names(paged.artist)).toEqual([])
        // A window past the end of existing matches is empty, not the closest items.
        expect(names((yield* search3({ query: "muse", songOffset: 10, albumCount: 0, artistCount: 0 })).song)).toEqual(
          [],
        )
        // A typo: the closest items, as on the JSON route.
        expect(names((yield* search3({ query: "beyonse" })).artist)[0]).toBe("Beyoncé")
        // search2 is the same search.
        expect(names(((yield* ok("search2", { query: "dont explain" }, auth)).searchResult2 as Json).song)).toEqual([
          "Don't Explain",
          "Sinner's Prayer",
        ])
      }),
    )
  },
)
