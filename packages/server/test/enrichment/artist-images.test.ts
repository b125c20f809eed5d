import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { ArtistId } from "@tonearm/core"
import { Effect } from "effect"
import { createAndLogIn, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { drained, fastEnrichment, jpeg } from "./support.js"

const root = await syntheticLibrary(80, 9)
const picture = await jpeg()
/** The artist Last.fm only has its grey-star placeholder for. */
let starless = ""

const lastfm = await startFakeServer((server) => {
  server.on("GET", "/2.0/", (request) => {
    const artist = request.query.get("artist") ?? ""
    switch (request.query.get("method")) {
      case "artist.gettoptags":
        return { body: { toptags: { tag: [{ name: "indie", count: 5 }] } } }
      case "artist.getinfo": {
        const url =
          artist === starless
            ? `${lastfm.url}/i/u/300x300/2a96cbd8b46e442fc41c2b86b821562f.png`
            : `${lastfm.url}/img/${encodeURIComponent(artist)}.jpg`
        return {
          body: {
            artist: {
              name: artist,
              image: [
                { "#text": "", size: "small" },
                { "#text": url, size: "extralarge" },
              ],
            },
          },
        }
      }
      default:
        return { body: { album: { tags: "", image: [] } } }
    }
  })
  server.on("GET", /^\/img\//, () => ({ body: new Uint8Array(picture), headers: { "content-type": "image/jpeg" } }))
  server.on("GET", /^\/i\/u\//, () => ({ body: new Uint8Array(picture), headers: { "content-type": "image/png" } }))
})
afterAll(() => lastfm.stop())

const settings = fastEnrichment({
  musicbrainz: "http://127.0.0.1:9",
  lastfm: lastfm.url,
  listenbrainz: "http://127.0.0.1:9",
  coverartarchive: "http://127.0.0.1:9",
})

layer(TestServerLive({ libraryDir: root, enrichment: settings }), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("artist images", (it) => {
  it.effect(
    "enrichment gives artists images (art_source, cover_url and the image route); a placeholder is no image",
    () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        const bob = yield* createAndLogIn(admin.client, "bob")
        yield* scanNow()
        const sql = yield* SqlClient.SqlClient
        const artists = yield* sql<{ id: string; name: string }>`SELECT id, name FROM artists ORDER BY name`
        starless = artists[0]!.name
        // Before enrichment: no image anywhere.
        const before = yield* bob.client.library.artist({ path: { id: ArtistId.make(artists[1]!.id) } })
        expect(before).toMatchObject({ cover_url: null, art_source: null })
        yield* admin.client.tagSources.update({ path: { id: "lastfm" }, payload: { enabled: true, api_key: "key" } })
        expect(yield* drained("lastfm")).toEqual({ settled: expect.any(Number) })

        const pictured = yield* bob.client.library.artist({ path: { id: ArtistId.make(artists[1]!.id) } })
        expect(pictured).toMatchObject({ art_source: "lastfm", cover_url: `/api/artists/${artists[1]!.id}/image` })
        const image = yield* raw("GET", `/api/artists/${artists[1]!.id}/image`, { token: bob.token })
        expect(image.status).toBe(200)
        expect(image.headers.get("content-type")).toBe("image/jpeg")
        expect(Buffer.compare(image.bytes, picture)).toBe(0)
        const etag = image.headers.get("etag")!
        const again = yield* raw("GET", `/api/artists/${artists[1]!.id}/image`, {
          token: bob.token,
          headers: { "if-none-match": etag },
        })
        expect(again.status).toBe(304)
        const small = yield* raw("GET", `/api/artists/${artists[1]!.id}/image?size=64`, { token: bob.token })
        expect(small.status).toBe(200)
        expect(small.headers.get("content-type")).toBe("image/jpeg")

        // Last.fm's placeholder star is not an image of the artist.
        const starlessArtist = yield* bob.client.library.artist({ path: { id: ArtistId.make(artists[0]!.id) } })
        expect(starlessArtist).toMatchObject({ art_source: null, cover_url: null })
        const none = yield* raw("GET", `/api/artists/${artists[0]!.id}/image`, { token: bob.token })
        expect(none.status).toBe(404)
        expect(none.json).toMatchObject({ error: { code: "not_found" } })
        expect((yield* raw("GET", `/api/artists/${artists[1]!.id}/image`)).status).toBe(401)
        // Every other artist got its image.
        const [covered] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM artists WHERE art_source = 'lastfm'`
        expect(covered!.n).toBe(artists.length - 1)
      }),
  )
})
