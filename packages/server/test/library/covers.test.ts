import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import sharp from "sharp"
import { Admin, AdminLive, ScannedLive } from "../ownData.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** The admin, signed up and the library scanned once while the file's layer builds (ownData). */
const arrange = Admin
const albumId = (title: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{
        id: string
        cover_art_source: string | null
      }>`SELECT id, cover_art_source FROM albums WHERE title = ${title}`,
      (rows) => rows[0]!,
    ),
  )
const cover = (id: string, query = "", headers: Record<string, string> = {}) =>
  Effect.flatMap(
    Effect.map(arrange, (admin) => admin.token),
    (token) => raw("GET", `/api/albums/${id}/cover${query}`, { token, headers }),
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("album covers", (it) => {
  it.effect("a sidecar cover is served as is, with ETag and Cache-Control max-age=86400, must-revalidate", () =>
    Effect.gen(function* () {
      yield* arrange
      const album = yield* albumId("Northern Static")
      expect(album.cover_art_source).toBe("sidecar")
      const response = yield* cover(album.id)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("image/jpeg")
      expect(response.headers.get("cache-control")).toBe("max-age=86400, must-revalidate")
      expect(response.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]+"$/)
      const onDisk = fs.readFileSync(path.join(root, "Aurora Lines/Northern Static/cover.jpg"))
      expect(response.bytes.equals(onDisk)).toBe(true)
    }),
  )

  it.effect("If-None-Match with the current ETag answers 304 with no body", () =>
    Effect.gen(function* () {
      yield* arrange
      const album = yield* albumId("Northern Static")
      const first = yield* cover(album.id)
      const etag = first.headers.get("etag")!
      const again = yield* cover(album.id, "", { "if-none-match": etag })
      expect(again.status).toBe(304)
      expect(again.bytes.length).toBe(0)
      expect(again.headers.get("etag")).toBe(etag)
      expect(again.headers.get("cache-control")).toBe("max-age=86400, must-revalidate")
      expect((yield* cover(album.id, "", { "if-none-match": '"stale"' })).status).toBe(200)
    }),
  )

  it.effect("size resizes with sharp, is cached on disk, and gets its own ETag", () =>
    Effect.gen(function* () {
      yield* arrange
      const album = yield* albumId("Über Café")
      expect(album.cover_art_source).toBe("sidecar") // folder.png
      const original = yield* cover(album.id)
      expect(original.headers.get("content-type")).toBe("image/png")
      const small = yield* cover(album.id, "?size=32")
      expect(small.status).toBe(200)
      expect(small.headers.get("content-type")).toBe("image/jpeg")
      const metadata = yield* Effect.promise(() => sharp(small.bytes).metadata())
      expect(Math.max(metadata.width ?? 0, metadata.height ?? 0)).toBeLessThanOrEqual(32)
      expect(small.headers.get("etag")).not.toBe(original.headers.get("etag"))
      const cached = yield* cover(album.id, "?size=32")
      expect(cached.bytes.equals(small.bytes)).toBe(true)
      expect((yield* cover(album.id, "?size=5")).status).toBe(400)
      expect((yield* cover(album.id, "?size=big")).status).toBe(400)
    }),
  )

  it.effect("an embedded picture is the cover when the folder has no sidecar (disc folders included)", () =>
    Effect.gen(function* () {
      yield* arrange
      const album = yield* albumId("Two Moons")
      expect(album.cover_art_source).toBe("embedded")
      const response = yield* cover(album.id, "?size=64")
      expect(response.status).toBe(200)
      const metadata = yield* Effect.promise(() => sharp(response.bytes).metadata())
      expect(metadata.format).toBe("jpeg")
    }),
  )

  it.effect("an album without a cover, or an unknown album, is 404; without credentials 401", () =>
    Effect.gen(function* () {
      yield* arrange
      const album = yield* albumId("Field Recordings")
      expect(album.cover_art_source).toBeNull()
      expect((yield* cover(album.id)).status).toBe(404)
      expect((yield* cover(crypto.randomUUID())).status).toBe(404)
      const anonymous = yield* raw("GET", `/api/albums/${(yield* albumId("Northern Static")).id}/cover`)
      expect(anonymous.status).toBe(401)
    }),
  )

  it.effect("a removed sidecar falls back to the embedded picture on the next scan; a new ETag follows", () =>
    Effect.gen(function* () {
      yield* arrange
      const album = yield* albumId("Northern Static")
      const before = (yield* cover(album.id)).headers.get("etag")
      fs.rmSync(path.join(root, "Aurora Lines/Northern Static/cover.jpg"))
      yield* scanNow()
      expect((yield* albumId("Northern Static")).cover_art_source).toBe("embedded")
      const after = yield* cover(album.id)
      expect(after.status).toBe(200)
      expect(after.headers.get("etag")).not.toBe(before)
    }),
  )

  it.effect(
    "cover sources list the providers with their albums and a coverage roll-up counting every valid source",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ source: string | null }>`SELECT cover_art_source AS source FROM albums`
        const client = (yield* arrange).client
        const listed = yield* client.coverSources.list()
        expect(listed.providers.map((provider) => provider.id)).toEqual([
          "sidecar",
          "embedded",
          "coverartarchive",
          "lastfm",
        ])
        expect(listed.coverage.albums).toBe(rows.length)
        expect(listed.coverage.covered).toBe(rows.filter((row) => row.source !== null).length)
        // An external provider's cover counts as covered too.
        yield* sql`UPDATE albums SET cover_art_source = 'coverartarchive' WHERE title = 'Field Recordings'`
        const after = yield* client.coverSources.list()
        expect(after.coverage.covered).toBe(listed.coverage.covered + 1)
        expect(after.coverage.by_source.coverartarchive).toBe(1)
        expect(after.providers.find((provider) => provider.id === "coverartarchive")).toMatchObject({
          covered_albums: 1,
        })
        expect(after.providers.find((provider) => provider.id === "sidecar")).toMatchObject({
          enabled: true,
          covered_albums: after.coverage.by_source.sidecar ?? 0,
        })
      }),
  )
})
