import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type Lyrics, TrackId } from "@tonearm/core"
import { Effect } from "effect"
import { ffmpeg, sineInput } from "../../fixtures/ffmpeg.js"
import { callJson, callXml, ok, withPassword } from "../subsonic/support.js"
import { createAndLogIn, PASSWORD, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

// ---- fixtures: real audio made by ffmpeg; ID3 lyrics frames written here (ffmpeg writes no USLT or SYLT) ----

const syncsafe = (n: number) => Buffer.from([(n >>> 21) & 0x7f, (n >>> 14) & 0x7f, (n >>> 7) & 0x7f, n & 0x7f])
const UTF8 = Buffer.from([3])
const frame = (id: string, body: Buffer) =>
  Buffer.concat([Buffer.from(id, "latin1"), syncsafe(body.length), Buffer.alloc(2), body])
const textFrame = (id: string, value: string) => frame(id, Buffer.concat([UTF8, Buffer.from(value, "utf8")]))
/** USLT: language, empty descriptor, the text. */
const uslt = (lang: string, value: string) =>
  frame("USLT", Buffer.concat([UTF8, Buffer.from(lang, "latin1"), Buffer.from([0]), Buffer.from(value, "utf8")]))
/** SYLT in milliseconds (format 2), content type lyrics (1): each entry's text, then its time. */
const sylt = (lang: string, entries: ReadonlyArray<readonly [number, string]>) => {
  const body = [UTF8, Buffer.from(lang, "latin1"), Buffer.from([2, 1]), Buffer.from([0])]
  for (const [ms, words] of entries) {
    const time = Buffer.alloc(4)
    time.writeUInt32BE(ms)
    body.push(Buffer.from(words, "utf8"), Buffer.from([0]), time)
  }
  return frame("SYLT", Buffer.concat(body))
}
/** An ID3v2.4 tag with title, artist, album and the given frames. */
const id3 = (title: string, frames: ReadonlyArray<Buffer>) => {
  const body = Buffer.concat([
    textFrame("TIT2", title),
    textFrame("TPE1", "Lyricist"),
    textFrame("TALB", "Words"),
    ...frames,
  ])
  return Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0]), syncsafe(body.length), body])
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-lyrics-"))
const outside = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-lyrics-outside-"))
const folder = path.join(root, "Lyricist", "Words")
fs.mkdirSync(folder, { recursive: true })
const at = (name: string) => path.join(folder, name)

/** A second of MP3 with no tags, to put hand-written ID3 tags in front of. */
const bareMp3 = path.join(outside, "bare.mp3")
await ffmpeg([...sineInput(1, 440), "-c:a", "libmp3lame", "-id3v2_version", "0", "-write_id3v1", "0", bareMp3])
const bare = fs.readFileSync(bareMp3)
const tagged = (name: string, title: string, frames: ReadonlyArray<Buffer>) =>
  fs.writeFileSync(at(name), Buffer.concat([id3(title, frames), bare]))
const tags = (title: string) => [
  "-metadata",
  `title=${title}`,
  "-metadata",
  "artist=Lyricist",
  "-metadata",
  "album=Words",
]

const SYLT_FRAME = sylt("eng", [
  [2_000, "second synced"],
  [1_000, "first synced"],
])
const USLT_FRAME = uslt("eng", "unsynced one\nunsynced two")

tagged("01 Lrc Wins.mp3", "Lrc Wins", [USLT_FRAME, SYLT_FRAME])
fs.writeFileSync(
  at("01 Lrc Wins.lrc"),
  "[ar:Lyricist]\n[la:fr]\n[offset:+100]\n[00:05.00]later\n[00:01.10][00:03.10]twice\n",
)
tagged("02 Sylt.mp3", "Sylt", [USLT_FRAME, SYLT_FRAME])
fs.writeFileSync(at("02 Sylt.txt"), "from the txt")
tagged("03 Uslt.mp3", "Uslt", [USLT_FRAME])
fs.writeFileSync(at("03 Uslt.txt"), "from the txt")
tagged("07 Txt Only.mp3", "Txt Only", [])
fs.writeFileSync(
  at("07 Txt Only.TXT"),
  Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("Ça va\n\nbien", "utf8")]),
)
tagged("08 None.mp3", "None", [])
tagged("09 Gone.mp3", "Gone", [USLT_FRAME])
tagged("10 Big.mp3", "Big", [])
fs.writeFileSync(at("10 Big.lrc"), `[00:01.00]${"x".repeat(1024 * 1024)}\n`)
fs.writeFileSync(at("10 Big.txt"), "small txt")
tagged("12 Link.mp3", "Link", [])
fs.writeFileSync(path.join(outside, "secret.lrc"), "[00:01.00]outside the library")
fs.symlinkSync(path.join(outside, "secret.lrc"), at("12 Link.lrc"))
await Promise.all([
  ffmpeg([
    ...sineInput(1, 440),
    "-c:a",
    "flac",
    ...tags("Flac"),
    "-metadata",
    "LYRICS=flac words\nmore",
    at("04 Flac.flac"),
  ]),
  ffmpeg([
    ...sineInput(1, 440),
    "-c:a",
    "flac",
    ...tags("Flac Lrc"),
    "-metadata",
    "LYRICS=[00:02.50]flac timed\n[00:00.50]flac first",
    at("05 Flac Lrc.flac"),
  ]),
  // ffmpeg writes its `lyrics` key into an MP3 as TXXX:USLT, into an MP4 as ©lyr.
  ffmpeg([
    ...sineInput(1, 440),
    "-c:a",
    "libmp3lame",
    ...tags("Ffmpeg"),
    "-metadata",
    "lyrics=ffmpeg words",
    at("06 Ffmpeg.mp3"),
  ]),
  ffmpeg([...sineInput(1, 440), "-c:a", "aac", ...tags("Mp4"), "-metadata", "lyrics=mp4 words", at("11 Mp4.m4a")]),
])

const unsynced = (...texts: ReadonlyArray<string>) => texts.map((text) => ({ start_ms: null, text }))

let alice: SignedIn
let bob: SignedIn
const ids = new Map<string, TrackId>()
let scanned: { readonly added: number; readonly errors: number } | undefined
/**
 * alice (the first account), bob, the scanned library and its track ids by title, made by whichever test runs
 * first (so that each also passes alone, with -t). Answers the scan's summary.
 */
const arrange = Effect.gen(function* () {
  if (scanned !== undefined) return scanned
  alice = yield* signUpFirstAdmin("alice")
  bob = yield* createAndLogIn(alice.client, "bob")
  const summary = yield* scanNow()
  const sql = yield* SqlClient.SqlClient
  for (const row of yield* sql<{ id: string; title: string }>`SELECT id, title FROM tracks`) {
    ids.set(row.title, TrackId.make(row.id))
  }
  scanned = summary
  return summary
})
const idOf = (title: string) => {
  const id = ids.get(title)
  if (id === undefined) throw new Error(`no track ${title}`)
  return id
}
const lyricsOf = (title: string, who: SignedIn = alice) =>
  who.client.library.lyrics({ path: { id: idOf(title) } }) as Effect.Effect<Lyrics, unknown>
const notFound = (title: string) =>
  Effect.gen(function* () {
    yield* arrange
    const error = yield* alice.client.library.lyrics({ path: { id: idOf(title) } }).pipe(Effect.flip)
    expect(error._tag).toBe("NotFound")
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })("lyrics", (it) => {
  it.effect("the fixture library scans: every file is a track", () =>
    Effect.gen(function* () {
      const summary = yield* arrange
      expect(summary).toMatchObject({ added: 12, errors: 0 })
    }),
  )

  it.effect(
    "a sidecar .lrc with the audio file's base name wins over the file's own lyrics (synced, [offset:] applied)",
    () =>
      Effect.gen(function* () {
        yield* arrange
        expect(yield* lyricsOf("Lrc Wins")).toEqual({
          synced: true,
          lang: "fr",
          source: "lrc",
          lines: [
            { start_ms: 1_000, text: "twice" },
            { start_ms: 3_000, text: "twice" },
            { start_ms: 4_900, text: "later" },
          ],
        })
      }),
  )

  it.effect("embedded synced lyrics (ID3 SYLT) win over embedded unsynced (USLT) and a sidecar .txt", () =>
    Effect.gen(function* () {
      yield* arrange
      expect(yield* lyricsOf("Sylt")).toEqual({
        synced: true,
        lang: "eng",
        source: "embedded",
        lines: [
          { start_ms: 1_000, text: "first synced" },
          { start_ms: 2_000, text: "second synced" },
        ],
      })
    }),
  )

  it.effect(
    "embedded unsynced lyrics win over a sidecar .txt: ID3 USLT with its language, FLAC LYRICS, MP4 ©lyr, ffmpeg's TXXX:USLT",
    () =>
      Effect.gen(function* () {
        yield* arrange
        expect(yield* lyricsOf("Uslt")).toEqual({
          synced: false,
          lang: "eng",
          source: "embedded",
          lines: unsynced("unsynced one", "unsynced two"),
        })
        expect(yield* lyricsOf("Flac")).toEqual({
          synced: false,
          lang: null,
          source: "embedded",
          lines: unsynced("flac words", "more"),
        })
        expect((yield* lyricsOf("Mp4")).lines).toEqual(unsynced("mp4 words"))
        expect((yield* lyricsOf("Ffmpeg")).lines).toEqual(unsynced("ffmpeg words"))
      }),
  )

  it.effect("an embedded text that is LRC-formatted counts as synced", () =>
    Effect.gen(function* () {
      yield* arrange
      expect(yield* lyricsOf("Flac Lrc")).toEqual({
        synced: true,
        lang: null,
        source: "embedded",
        lines: [
          { start_ms: 500, text: "flac first" },
          { start_ms: 2_500, text: "flac timed" },
        ],
      })
    }),
  )

  it.effect(
    "a sidecar .txt is the last resort: unsynced, its extension in any letter case, UTF-8 with the BOM stripped",
    () =>
      Effect.gen(function* () {
        yield* arrange
        expect(yield* lyricsOf("Txt Only")).toEqual({
          synced: false,
          lang: null,
          source: "txt",
          lines: unsynced("Ça va", "", "bien"),
        })
      }),
  )

  it.effect("sidecars are capped at 1 MB: a larger .lrc is not read and the next source answers", () =>
    Effect.gen(function* () {
      yield* arrange
      expect(yield* lyricsOf("Big")).toMatchObject({ source: "txt", lines: unsynced("small txt") })
    }),
  )

  it.effect("a sidecar that is a symlink out of the library is not read", () => notFound("Link"))

  it.effect("another user sees the same lyrics: the library is shared", () =>
    Effect.gen(function* () {
      yield* arrange
      expect(yield* lyricsOf("Sylt", bob)).toEqual(yield* lyricsOf("Sylt"))
    }),
  )

  it.effect("404 not_found: a track without lyrics, an id that names no track; 401 signed out", () =>
    Effect.gen(function* () {
      yield* arrange
      yield* notFound("None")
      const unknown = yield* raw("GET", `/api/tracks/${crypto.randomUUID()}/lyrics`, { token: alice.token })
      expect(unknown.status).toBe(404)
      expect(unknown.json).toEqual({ error: { code: "not_found", message: "no such track" } })
      const none = yield* raw("GET", `/api/tracks/${idOf("None")}/lyrics`, { token: alice.token })
      expect(none.json).toEqual({ error: { code: "not_found", message: "this track has no lyrics" } })
      expect((yield* raw("GET", `/api/tracks/${idOf("Sylt")}/lyrics`)).status).toBe(401)
    }),
  )

  it.effect("Subsonic getOpenSubsonicExtensions advertises songLyrics", () =>
    Effect.gen(function* () {
      yield* arrange
      const body = yield* ok("getOpenSubsonicExtensions", {}, {})
      expect(body.openSubsonicExtensions).toContainEqual({ name: "songLyrics", versions: [1] })
    }),
  )

  it.effect(
    "Subsonic getLyricsBySongId: structured lyrics (start only when synced, lang xxx when unknown), an empty list when none, 70 for an unknown song",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const auth = withPassword("bob", PASSWORD)
        const synced = yield* ok("getLyricsBySongId", { id: idOf("Sylt") }, auth)
        expect(synced.lyricsList).toEqual({
          structuredLyrics: [
            {
              displayArtist: "Lyricist",
              displayTitle: "Sylt",
              lang: "eng",
              offset: 0,
              synced: true,
              line: [
                { start: 1_000, value: "first synced" },
                { start: 2_000, value: "second synced" },
              ],
            },
          ],
        })
        const plain = yield* ok("getLyricsBySongId", { id: idOf("Txt Only") }, auth)
        expect(plain.lyricsList).toMatchObject({
          structuredLyrics: [
            { lang: "xxx", synced: false, line: [{ value: "Ça va" }, { value: "" }, { value: "bien" }] },
          ],
        })
        const xml = yield* callXml("getLyricsBySongId", { id: idOf("Sylt") }, auth)
        expect(xml.text).toContain('<line start="1000">first synced</line>')
        expect((yield* ok("getLyricsBySongId", { id: idOf("None") }, auth)).lyricsList).toEqual({
          structuredLyrics: [],
        })
        const unknown = yield* callJson("getLyricsBySongId", { id: crypto.randomUUID() }, auth)
        expect(unknown.body.error?.code).toBe(70)
        expect((yield* callJson("getLyricsBySongId", {}, auth)).body.error?.code).toBe(10)
      }),
  )

  it.effect(
    "Subsonic getLyrics: the best matching present track's lyrics as text (case and punctuation ignored), an empty element when none",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const auth = withPassword("bob", PASSWORD)
        const found = yield* ok("getLyrics", { artist: "lyricist", title: "uslt!" }, auth)
        expect(found.lyrics).toEqual({ artist: "Lyricist", title: "Uslt", value: "unsynced one\nunsynced two" })
        const titleOnly = yield* ok("getLyrics", { title: "Flac Lrc" }, auth)
        expect(titleOnly.lyrics).toEqual({ artist: "Lyricist", title: "Flac Lrc", value: "flac first\nflac timed" })
        expect((yield* ok("getLyrics", { artist: "Somebody Else", title: "Uslt" }, auth)).lyrics).toEqual({})
        expect((yield* ok("getLyrics", { artist: "Lyricist", title: "None" }, auth)).lyrics).toEqual({})
        expect((yield* ok("getLyrics", {}, auth)).lyrics).toEqual({})
        const xml = yield* callXml("getLyrics", { artist: "Lyricist", title: "Uslt" }, auth)
        expect(xml.text).toContain('<lyrics artist="Lyricist" title="Uslt">unsynced one\nunsynced two</lyrics>')
      }),
  )

  it.effect("a track whose file is missing is 404, before and after the scan that marks it missing", () =>
    Effect.gen(function* () {
      yield* arrange
      expect((yield* lyricsOf("Gone")).source).toBe("embedded")
      fs.rmSync(at("09 Gone.mp3"))
      yield* notFound("Gone")
      yield* scanNow()
      yield* notFound("Gone")
      const auth = withPassword("bob", PASSWORD)
      expect((yield* callJson("getLyricsBySongId", { id: idOf("Gone") }, auth)).body.error?.code).toBe(70)
      expect((yield* ok("getLyrics", { artist: "Lyricist", title: "Gone" }, auth)).lyrics).toEqual({})
    }).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          fs.rmSync(root, { recursive: true, force: true })
          fs.rmSync(outside, { recursive: true, force: true })
        }),
      ),
    ),
  )
})
