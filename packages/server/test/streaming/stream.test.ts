import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { signStreamToken, TrackId } from "@tonearm/core"
import { Effect, Redacted } from "effect"
import { SAMPLE } from "../../fixtures/wild.js"
import { StreamSecret } from "../../src/streaming/index.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { makeLibrary, scanNow, wildSamples } from "../support/library.js"
import { raw } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

// Stereo files with embedded art in every served container (lossless m4a, ID3 in WAV), a cut mp3, raw ADTS.
const wild = (await wildSamples()).root
const library = makeLibrary({
  "Union Youth/The Royal Gene/04 Strawberry.mp3": path.join(wild, SAMPLE.cutMp3),
  "Beth Hart/Sinner's Prayer/01 Sinner's Prayer.flac": path.join(wild, SAMPLE.flac),
  "Beth Hart/Sinner's Prayer (m4a)/01.m4a": path.join(wild, SAMPLE.alac),
  "Beth Hart/Sinner's Prayer (ogg)/01.ogg": path.join(wild, SAMPLE.ogg),
  "Beth Hart/Sinner's Prayer (wav)/01.WAV": path.join(wild, SAMPLE.wav),
  "ADTS/adts.aac": path.join(wild, SAMPLE.adts),
})
// A link out of the library is never indexed nor served.
fs.symlinkSync("/etc/hosts", path.join(library, "ADTS", "escape.mp3"))

interface Row {
  readonly id: TrackId
  readonly path: string
  readonly file_format: string
  readonly title: string
}

const tracks = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<Row>`SELECT id, path, file_format, title FROM tracks ORDER BY path`,
)
const trackAt = (suffix: string) =>
  Effect.map(tracks, (rows) => {
    const row = rows.find((candidate) => candidate.path.endsWith(suffix))
    if (row === undefined) throw new Error(`no track ending with ${suffix}`)
    return { ...row, bytes: fs.readFileSync(path.join(library, row.path)) }
  })

layer(TestServerLive({ libraryDir: library }), { excludeTestServices: true, timeout: "90 seconds" })(
  "streaming",
  (it) => {
    it.effect("the scan indexes every format and skips the symlink that leaves the library", () =>
      Effect.gen(function* () {
        yield* signUpFirstAdmin("admin")
        const summary = yield* scanNow()
        expect(summary.errors).toBe(0)
        const rows = yield* tracks
        expect(rows.map((row) => row.file_format).sort()).toEqual(["aac", "flac", "m4a", "mp3", "ogg", "wav"])
        expect(rows.some((row) => row.path.includes("escape"))).toBe(false)
      }),
    )

    it.effect("stream answers 401 without credentials whether or not the track exists", () =>
      Effect.gen(function* () {
        const real = yield* trackAt(".mp3")
        for (const id of [real.id, crypto.randomUUID(), "not-even-a-uuid"]) {
          const response = yield* raw("GET", `/api/tracks/${id}/stream`)
          expect(response.status).toBe(401)
          expect(response.json).toMatchObject({ error: { code: "unauthenticated" } })
        }
      }),
    )

    it.effect("a signed-in GET streams the exact file with the format's MIME type and immutable caching", () =>
      Effect.gen(function* () {
        const { token } = yield* signUpFirstAdmin("x").pipe(Effect.orElse(() => adminToken))
        const expected: Record<string, string> = {
          ".mp3": "audio/mpeg",
          ".flac": "audio/flac",
          ".m4a": "audio/mp4",
          ".ogg": "audio/ogg",
          ".WAV": "audio/wav",
          ".aac": "audio/aac",
        }
        const base = yield* serverUrl
        for (const [suffix, mime] of Object.entries(expected)) {
          const track = yield* trackAt(suffix)
          const response = yield* Effect.promise(() =>
            fetch(`${base}/api/tracks/${track.id}/stream`, { headers: { authorization: `Bearer ${token}` } }),
          )
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe(mime)
          expect(response.headers.get("cache-control")).toBe("max-age=31536000, immutable")
          expect(response.headers.get("accept-ranges")).toBe("bytes")
          expect(Number(response.headers.get("content-length"))).toBe(track.bytes.length)
          const body = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
          expect(body.equals(track.bytes)).toBe(true)
        }
      }),
    )

    it.effect("the session cookie works too, and so does the file-extension suffix", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const track = yield* trackAt(".flac")
        const response = yield* raw("GET", `/api/tracks/${track.id}/stream.flac`, {
          headers: { cookie: `tonearm_session=${token}` },
        })
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe("audio/flac")
      }),
    )

    it.effect("HEAD answers the headers and no body", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const track = yield* trackAt(".mp3")
        const response = yield* raw("HEAD", `/api/tracks/${track.id}/stream`, { token })
        expect(response.status).toBe(200)
        expect(Number(response.headers.get("content-length"))).toBe(track.bytes.length)
        expect(response.text).toBe("")
      }),
    )

    it.effect("Range requests answer 206 with byte-exact bodies checked against the file", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const track = yield* trackAt(".flac")
        const size = track.bytes.length
        const base = yield* serverUrl
        const cases: Array<[string, number, number]> = [
          ["bytes=0-99", 0, 99],
          ["bytes=1000-", 1000, size - 1],
          ["bytes=-500", size - 500, size - 1],
          [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
          ["bytes=0-0", 0, 0],
        ]
        for (const [range, start, end] of cases) {
          const response = yield* Effect.promise(() =>
            fetch(`${base}/api/tracks/${track.id}/stream`, { headers: { authorization: `Bearer ${token}`, range } }),
          )
          expect(response.status).toBe(206)
          expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`)
          expect(Number(response.headers.get("content-length"))).toBe(end - start + 1)
          const body = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
          expect(body.equals(track.bytes.subarray(start, end + 1))).toBe(true)
        }
      }),
    )

    it.effect("a range past the end is 416 with Content-Range bytes */size", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const track = yield* trackAt(".flac")
        const response = yield* raw("GET", `/api/tracks/${track.id}/stream`, {
          token,
          headers: { range: `bytes=${track.bytes.length}-` },
        })
        expect(response.status).toBe(416)
        expect(response.headers.get("content-range")).toBe(`bytes */${track.bytes.length}`)
        expect(response.json).toMatchObject({ error: { code: "range_not_satisfiable" } })
      }),
    )

    /** Sends every range on one keep-alive connection (the last closes it); answers the responses as framed. */
    const rangesOnOneConnection = (trackId: TrackId, token: string, ranges: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const base = new URL(yield* serverUrl)
        const request = (range: string, close: boolean) =>
          `GET /api/tracks/${trackId}/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nRange: ${range}\r\n${close ? "Connection: close\r\n" : ""}\r\n`
        const raw = yield* Effect.promise(
          () =>
            new Promise<Buffer>((resolve, reject) => {
              const socket = net.connect(Number(base.port), base.hostname, () => {
                ranges.forEach((range, index) => {
                  socket.write(request(range, index === ranges.length - 1))
                })
              })
              const chunks: Array<Buffer> = []
              socket.on("data", (chunk) => chunks.push(chunk))
              socket.on("end", () => resolve(Buffer.concat(chunks)))
              socket.on("error", reject)
            }),
        )
        const responses: Array<{ status: number; body: Buffer }> = []
        let offset = 0
        while (offset < raw.length) {
          const headerEnd = raw.indexOf("\r\n\r\n", offset)
          const head = raw.subarray(offset, headerEnd).toString("latin1")
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1])
          const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1])
          responses.push({ status, body: raw.subarray(headerEnd + 4, headerEnd + 4 + length) })
          offset = headerEnd + 4 + length
        }
        expect(offset).toBe(raw.length)
        return responses
      })

    it.effect("two range requests on one keep-alive connection are framed exactly", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const track = yield* trackAt(".mp3")
        const responses = yield* rangesOnOneConnection(track.id, token, ["bytes=10-109", "bytes=200-249"])
        expect(responses.map((response) => response.status)).toEqual([206, 206])
        expect(responses[0]!.body.equals(track.bytes.subarray(10, 110))).toBe(true)
        expect(responses[1]!.body.equals(track.bytes.subarray(200, 250))).toBe(true)
      }),
    )

    it.effect("small ranges (read at once) and large ones (read stream) are byte-exact on one connection", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        // Over 128 KB: the whole file goes through a read stream, a small range through one read.
        const track = yield* trackAt(".flac")
        expect(track.bytes.length).toBeGreaterThan(128 * 1024)
        const size = track.bytes.length
        const responses = yield* rangesOnOneConnection(track.id, token, [
          "bytes=10-109",
          "bytes=0-",
          `bytes=${size - 131072}-`,
          `bytes=${size - 131073}-`,
          "bytes=200-249",
        ])
        expect(responses.map((response) => response.status)).toEqual([206, 206, 206, 206, 206])
        expect(responses[0]!.body.equals(track.bytes.subarray(10, 110))).toBe(true)
        expect(responses[1]!.body.equals(track.bytes)).toBe(true)
        expect(responses[2]!.body.equals(track.bytes.subarray(size - 131072))).toBe(true)
        expect(responses[3]!.body.equals(track.bytes.subarray(size - 131073))).toBe(true)
        expect(responses[4]!.body.equals(track.bytes.subarray(200, 250))).toBe(true)
      }),
    )

    it.effect("a signed token streams its track without a session, and only its track, secret and lifetime", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const client = yield* makeTonearmClient({ credentials: bearer(token) })
        const mp3 = yield* trackAt(".mp3")
        const flac = yield* trackAt(".flac")
        const cast = yield* client.cast.streamToken({ payload: { track_id: mp3.id }, urlParams: {} })
        const url = new URL(cast.url)
        const ok = yield* raw("GET", `${url.pathname}${url.search}`)
        expect(ok.status).toBe(200)
        const otherTrack = yield* raw("GET", `/api/tracks/${flac.id}/stream${url.search}`)
        expect(otherTrack.status).toBe(401)
        const secret = yield* StreamSecret
        const now = Math.floor(Date.now() / 1000)
        const sign = (key: Uint8Array, exp: number) => `?exp=${exp}&token=${signStreamToken(key, mp3.id, exp)}`
        expect(
          (yield* raw("GET", `/api/tracks/${mp3.id}/stream${sign(Redacted.value(secret.key), now + 600)}`)).status,
        ).toBe(200)
        expect((yield* raw("GET", `/api/tracks/${mp3.id}/stream${sign(new Uint8Array(64), now + 600)}`)).status).toBe(
          401,
        )
        expect(
          (yield* raw("GET", `/api/tracks/${mp3.id}/stream${sign(Redacted.value(secret.key), now - 1)}`)).status,
        ).toBe(401)
        expect(
          (yield* raw("GET", `/api/tracks/${mp3.id}/stream${sign(Redacted.value(secret.key), now + 90_000)}`)).status,
        ).toBe(401)
        const tampered = `/api/tracks/${mp3.id}/stream?exp=${cast.exp + 1}&token=${cast.token}`
        expect((yield* raw("GET", tampered)).status).toBe(401)
      }),
    )

    it.effect("only files under the library root are served: no traversal, no symlink escape", () =>
      Effect.gen(function* () {
        const { token } = yield* adminToken
        const sql = yield* SqlClient.SqlClient
        const template = yield* trackAt(".mp3")
        const sneaky: Array<string> = ["../../../../etc/hosts", "ADTS/escape.mp3", "/etc/hosts"]
        for (const [index, sneakyPath] of sneaky.entries()) {
          const id = TrackId.make(crypto.randomUUID())
          yield* sql`
          INSERT INTO tracks (id, path, directory, size_bytes, mtime_ms, title, search_key, album_id, artist_id,
                              duration_ms, file_format, added_at, updated_at)
          SELECT ${id}, ${sneakyPath}, '', 1, 1, ${`sneaky ${index}`}, 'sneaky', album_id, artist_id, 0, 'mp3', now(), now()
          FROM tracks WHERE id = ${template.id}`
          const response = yield* raw("GET", `/api/tracks/${id}/stream`, { token })
          expect(response.status).toBe(404)
          expect(response.text).not.toContain("localhost")
        }
      }),
    )
  },
)

const adminToken = Effect.gen(function* () {
  const anonymous = yield* makeTonearmClient()
  return yield* anonymous.auth.login({ payload: { username: "admin", password: "correct horse battery" } })
})
