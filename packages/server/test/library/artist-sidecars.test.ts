import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { ArtistId } from "@tonearm/core"
import { Effect } from "effect"
import sharp from "sharp"
import { eventually, fastEnrichment, jpeg } from "../enrichment/support.js"
import { query } from "../subsonic/support.js"
import { PASSWORD, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** A distinct image per colour, so what is served tells which file it came from. */
const image = (format: "jpeg" | "png", background: string) =>
  sharp({ create: { width: 12, height: 12, channels: 3, background } })
    [format]()
    .toBuffer()
const auroraJpg = await image("jpeg", "#2255aa")
const rootJpg = await image("jpeg", "#000000")
const fernsPng = await image("png", "#33aa33")
const providerPicture = await jpeg()

const put = (relative: string, bytes: Buffer) => fs.writeFileSync(path.join(root, relative), bytes)
const remove = (relative: string) => fs.rmSync(path.join(root, relative))

/** A Last.fm that has a picture of every artist. */
const lastfm = await startFakeServer((server) => {
  server.on("GET", "/2.0/", (request) => {
    const artist = request.query.get("artist") ?? ""
    switch (request.query.get("method")) {
      case "artist.gettoptags":
        return { body: { toptags: { tag: [] } } }
      case "artist.getinfo":
        return {
          body: {
            artist: {
              name: artist,
              image: [{ "#text": `${lastfm.url}/img/${encodeURIComponent(artist)}.jpg`, size: "extralarge" }],
            },
          },
        }
      default:
        return { body: { album: { tags: "", image: [] } } }
    }
  })
  server.on("GET", /^\/img\//, () => ({
    body: new Uint8Array(providerPicture),
    headers: { "content-type": "image/jpeg" },
  }))
})
afterAll(() => lastfm.stop())

const settings = fastEnrichment({
  musicbrainz: "http://127.0.0.1:9",
  lastfm: lastfm.url,
  listenbrainz: "http://127.0.0.1:9",
  coverartarchive: "http://127.0.0.1:9",
})

let admin: SignedIn
const artistNamed = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; art_source: string | null }>`SELECT id, art_source FROM artists WHERE name = ${name}`,
      (rows) => rows[0]!,
    ),
  )
const artistImage = (id: string) => raw("GET", `/api/artists/${id}/image`, { token: admin.token })
const sourceOf = (name: string) => Effect.map(artistNamed(name), (row) => row.art_source)

layer(TestServerLive({ libraryDir: root, enrichment: settings }), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("local artist images", (it) => {
  it.effect("artist.jpg in the artist folder becomes the artist image with source sidecar", () =>
    Effect.gen(function* () {
      admin = yield* signUpFirstAdmin("admin")
      put("Aurora Lines/artist.jpg", auroraJpg)
      // The library folder is nobody's artist folder: its artist.jpg goes to no one.
      put("artist.jpg", rootJpg)
      yield* scanNow()
      const aurora = yield* artistNamed("Aurora Lines")
      const detail = yield* admin.client.library.artist({ path: { id: ArtistId.make(aurora.id) } })
      expect(detail).toMatchObject({ art_source: "sidecar", cover_url: `/api/artists/${aurora.id}/image` })
      const served = yield* artistImage(aurora.id)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/jpeg")
      expect(Buffer.compare(served.bytes, auroraJpg)).toBe(0)
      const small = yield* raw("GET", `/api/artists/${aurora.id}/image?size=16`, { token: admin.token })
      expect(small.status).toBe(200)
      const sql = yield* SqlClient.SqlClient
      const others = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM artists WHERE art_source IS NOT NULL AND name <> 'Aurora Lines'`
      expect(others[0]!.n).toBe(0)
    }),
  )

  it.effect("artist.PNG in an album folder with disc sub-folders is its album artist's image, in any letter case", () =>
    Effect.gen(function* () {
      put("The Velvet Ferns/Two Moons/ARTIST.PNG", fernsPng)
      yield* scanNow()
      const ferns = yield* artistNamed("The Velvet Ferns")
      expect(ferns.art_source).toBe("sidecar")
      const served = yield* artistImage(ferns.id)
      expect(served.headers.get("content-type")).toBe("image/png")
      expect(Buffer.compare(served.bytes, fernsPng)).toBe(0)
    }),
  )

  it.effect("the cover-source roll-up counts artist images by source; sidecar reports the artists it covers", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [artists] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM artists`
      const listed = yield* admin.client.coverSources.list()
      expect(listed.providers.find((provider) => provider.id === "sidecar")).toMatchObject({ covered_artists: 2 })
      expect(listed.providers.find((provider) => provider.id === "lastfm")).toMatchObject({ covered_artists: 0 })
      expect(listed.coverage).toMatchObject({
        artists: artists!.n,
        covered_artists: 2,
        artists_by_source: { sidecar: 2 },
      })
    }),
  )

  it.effect("Subsonic getCoverArt of an artist serves its artist image", () =>
    Effect.gen(function* () {
      const aurora = yield* artistNamed("Aurora Lines")
      const auth = { u: "admin", p: PASSWORD, c: "vitest", v: "1.16.1" }
      const cover = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...auth, id: `ar-${aurora.id}` })}`)
      expect(cover.status).toBe(200)
      expect(Buffer.compare(cover.bytes, auroraJpg)).toBe(0)
      const sized = yield* raw("GET", `/rest/getCoverArt.view?${query({ ...auth, id: `ar-${aurora.id}`, size: 16 })}`)
      expect(sized.status).toBe(200)
      expect(sized.headers.get("content-type")).toBe("image/jpeg")
    }),
  )

  it.effect("removing artist.jpg drops it on the next scan", () =>
    Effect.gen(function* () {
      remove("Aurora Lines/artist.jpg")
      yield* scanNow()
      const aurora = yield* artistNamed("Aurora Lines")
      expect(aurora.art_source).toBeNull()
      const detail = yield* admin.client.library.artist({ path: { id: ArtistId.make(aurora.id) } })
      expect(detail).toMatchObject({ art_source: null, cover_url: null })
      expect((yield* artistImage(aurora.id)).status).toBe(404)
      expect(yield* sourceOf("The Velvet Ferns")).toBe("sidecar")
    }),
  )

  it.effect("a local artist image wins over a provider's, and the provider's returns when the file goes", () =>
    Effect.gen(function* () {
      yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { enabled: true, api_key: "key" } })
      // Enrichment pictures the artists without an image, and leaves the local one alone.
      yield* eventually(
        Effect.map(sourceOf("Aurora Lines"), (source) => source === "lastfm"),
        "Last.fm's picture",
      )
      yield* eventually(
        Effect.map(sourceOf("Old Wire"), (source) => source === "lastfm"),
        "Last.fm's picture",
      )
      const ferns = yield* artistNamed("The Velvet Ferns")
      expect(ferns.art_source).toBe("sidecar")
      expect(Buffer.compare((yield* artistImage(ferns.id)).bytes, fernsPng)).toBe(0)

      // A local image over the provider's.
      put("Aurora Lines/artist.jpg", auroraJpg)
      yield* scanNow()
      const aurora = yield* artistNamed("Aurora Lines")
      expect(aurora.art_source).toBe("sidecar")
      expect(Buffer.compare((yield* artistImage(aurora.id)).bytes, auroraJpg)).toBe(0)

      // Gone again: the next scan drops it and the provider fills the image back in.
      remove("Aurora Lines/artist.jpg")
      yield* scanNow()
      yield* eventually(
        Effect.map(sourceOf("Aurora Lines"), (source) => source === "lastfm"),
        "the fallback",
      )
      expect(Buffer.compare((yield* artistImage(aurora.id)).bytes, providerPicture)).toBe(0)
    }),
  )
})
