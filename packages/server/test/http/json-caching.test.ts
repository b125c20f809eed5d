import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { COMPRESS_MIN_BYTES, etagMatches, negotiateEncoding } from "../../src/http/jsonCaching.js"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(60, 9)
const away = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-away-"))

const firstTrack = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{
      id: string
      album_id: string
      directory: string
    }>`SELECT id, album_id, directory FROM tracks ORDER BY path LIMIT 1`,
    (rows) => rows[0]!,
  ),
)

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "JSON caching and compression",
  (it) => {
    let admin: SignedIn
    let listener: SignedIn

    it.effect(
      "a list or detail answer carries an ETag; If-None-Match with it is 304 with no body, Vary and no-cache",
      () =>
        Effect.gen(function* () {
          admin = yield* signUpFirstAdmin("admin")
          listener = yield* createAndLogIn(admin.client, "listener")
          yield* scanNow()
          const track = yield* firstTrack
          for (const route of ["/api/library/genres", "/api/library/albums?limit=5", `/api/albums/${track.album_id}`]) {
            const first = yield* raw("GET", route, { token: admin.token })
            expect(first.status).toBe(200)
            const etag = first.headers.get("etag")!
            expect(etag).toMatch(/^W\/".+"$/)
            expect(first.headers.get("cache-control")).toBe("private, no-cache")
            expect(first.headers.get("vary")).toMatch(/Authorization.*Cookie.*Accept-Encoding/)
            const again = yield* raw("GET", route, { token: admin.token, headers: { "if-none-match": etag } })
            expect(again.status).toBe(304)
            expect(again.bytes.length).toBe(0)
            expect(again.headers.get("etag")).toBe(etag)
            const other = yield* raw("GET", route, { token: admin.token, headers: { "if-none-match": 'W/"other"' } })
            expect(other.status).toBe(200)
            expect(other.text).toBe(first.text)
          }
        }),
    )

    it.effect("the ETag of a user's likes changes when that user likes a track, and only theirs", () =>
      Effect.gen(function* () {
        const track = yield* firstTrack
        const mine = yield* raw("GET", "/api/likes", { token: listener.token })
        const theirs = yield* raw("GET", "/api/likes", { token: admin.token })
        expect((yield* raw("PUT", `/api/likes/tracks/${track.id}`, { token: listener.token })).status).toBe(204)
        const mineAfter = yield* raw("GET", "/api/likes", {
          token: listener.token,
          headers: { "if-none-match": mine.headers.get("etag")! },
        })
        expect(mineAfter.status).toBe(200)
        expect(mineAfter.headers.get("etag")).not.toBe(mine.headers.get("etag"))
        const theirsAfter = yield* raw("GET", "/api/likes", {
          token: admin.token,
          headers: { "if-none-match": theirs.headers.get("etag")! },
        })
        expect(theirsAfter.status).toBe(304)
      }),
    )

    it.effect("the ETag of a library answer changes after a scan that changes the library", () =>
      Effect.gen(function* () {
        const before = yield* raw("GET", "/api/library/albums?limit=500", { token: admin.token })
        const { directory } = yield* firstTrack
        fs.renameSync(path.join(root, directory), path.join(away, "album"))
        yield* scanNow()
        const after = yield* raw("GET", "/api/library/albums?limit=500", {
          token: admin.token,
          headers: { "if-none-match": before.headers.get("etag")! },
        })
        expect(after.status).toBe(200)
        expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"))
        fs.renameSync(path.join(away, "album"), path.join(root, directory))
        yield* scanNow()
      }),
    )

    it.effect(
      "JSON of 1 KiB or more is gzip- or br-compressed as Accept-Encoding asks; small JSON and audio are not",
      () =>
        Effect.gen(function* () {
          const plain = yield* raw("GET", "/api/library/albums?limit=500", { token: admin.token })
          expect(plain.bytes.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES)
          expect(plain.headers.get("content-encoding")).toBeNull()
          const gz = yield* raw("GET", "/api/library/albums?limit=500", {
            token: admin.token,
            headers: { "accept-encoding": "gzip" },
          })
          expect(gz.headers.get("content-encoding")).toBe("gzip")
          expect(zlib.gunzipSync(gz.bytes).toString("utf8")).toBe(plain.text)
          expect(gz.headers.get("etag")).toBe(plain.headers.get("etag"))
          const br = yield* raw("GET", "/api/library/albums?limit=500", {
            token: admin.token,
            headers: { "accept-encoding": "gzip, deflate, br" },
          })
          expect(br.headers.get("content-encoding")).toBe("br")
          expect(zlib.brotliDecompressSync(br.bytes).toString("utf8")).toBe(plain.text)
          const refused = yield* raw("GET", "/api/library/albums?limit=500", {
            token: admin.token,
            headers: { "accept-encoding": "gzip;q=0, br;q=0" },
          })
          expect(refused.headers.get("content-encoding")).toBeNull()
          const small = yield* raw("GET", "/api/library/years", {
            token: admin.token,
            headers: { "accept-encoding": "gzip" },
          })
          expect(small.bytes.length).toBeLessThan(COMPRESS_MIN_BYTES)
          expect(small.headers.get("content-encoding")).toBeNull()
          const track = yield* firstTrack
          const audio = yield* raw("GET", `/api/tracks/${track.id}/stream`, {
            token: admin.token,
            headers: { "accept-encoding": "gzip, br" },
          })
          expect(audio.status).toBe(200)
          expect(audio.headers.get("content-encoding")).toBeNull()
          expect(audio.headers.get("etag")?.startsWith('W/"')).not.toBe(true)
        }),
    )

    it("negotiation and ETag comparison follow RFC 9110", () => {
      expect(negotiateEncoding(undefined)).toBeUndefined()
      expect(negotiateEncoding("gzip, deflate")).toBe("gzip")
      expect(negotiateEncoding("br;q=0.5, gzip")).toBe("br")
      expect(negotiateEncoding("br;q=0, gzip;q=0")).toBeUndefined()
      expect(negotiateEncoding("*")).toBe("br")
      expect(negotiateEncoding("identity")).toBeUndefined()
      expect(etagMatches('"a", W/"b"', 'W/"b"')).toBe(true)
      expect(etagMatches('"b"', 'W/"b"')).toBe(true)
      expect(etagMatches("*", 'W/"b"')).toBe(true)
      expect(etagMatches('W/"c"', 'W/"b"')).toBe(false)
    })
  },
)
