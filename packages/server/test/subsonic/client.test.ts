import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { SubsonicJsonResponse } from "@tonearm/core"
import { Effect, Either, ParseResult, Schema } from "effect"
import SubsonicAPI from "subsonic-api"
import { createAndLogIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { rawJson } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * Tonearm through a real Subsonic client library from the registry (subsonic-api): token auth with the app
 * password, OpenSubsonic API keys and form POST, every method the server implements. Each answer is also
 * decoded against the OpenSubsonic response schemas.
 */
const { root } = await fixtureLibrary()

const checked = Schema.decodeUnknownEither(SubsonicJsonResponse, { onExcessProperty: "error" })
/**
 * The library hands back `subsonic-response`'s content with its dates parsed; JSON-round-trip it (dates back to
 * ISO strings) and wrap it again to check it against the schema.
 */
const conforms = <A>(answer: A): A => {
  const result = checked({ "subsonic-response": JSON.parse(JSON.stringify(answer)) })
  if (Either.isLeft(result)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left)
    throw new Error(`off the schema: ${JSON.stringify(issues.slice(0, 3))}\n${JSON.stringify(answer).slice(0, 500)}`)
  }
  return answer
}
const promise = <A>(run: () => Promise<A>) => Effect.promise(run)
// biome-ignore lint/suspicious/noExplicitAny: the library's answer types are loose unions; assertions read them directly
type Any = any

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "subsonic through subsonic-api",
  (it) => {
    it.scoped("every method through the client: token auth (app password), apiKey, and formPost", () =>
      Effect.gen(function* () {
        const alice = yield* signUpFirstAdmin("alice")
        const bob = yield* createAndLogIn(alice.client, "bob")
        yield* scanNow()
        const url = yield* serverUrl
        const appPassword = ((yield* rawJson("POST", "/api/me/subsonic-password", {}, alice.token)).json as Any)
          .password as string
        const apiKey = ((yield* rawJson("POST", "/api/me/api-keys", { name: "client" }, alice.token)).json as Any)
          .key as string
        const bobPassword = ((yield* rawJson("POST", "/api/me/subsonic-password", {}, bob.token)).json as Any)
          .password as string
        const byToken = new SubsonicAPI({ url, auth: { username: "alice", password: appPassword } })
        const byKey = new SubsonicAPI({ url, auth: { apiKey } })
        const byPost = new SubsonicAPI({ url, auth: { username: "alice", password: appPassword }, post: true })
        const asBob = new SubsonicAPI({ url, auth: { username: "bob", password: bobPassword } })
        const sql = yield* SqlClient.SqlClient
        const tracks = yield* sql<{ id: string; album_id: string; artist_id: string }>`
          SELECT id, album_id, artist_id FROM tracks ORDER BY path`
        const track = tracks[0]!

        for (const api of [byToken, byKey, byPost]) {
          expect(conforms(yield* promise(() => api.ping()))).toMatchObject({
            status: "ok",
            type: "tonearm",
            openSubsonic: true,
          })
        }
        const wrong = new SubsonicAPI({ url, auth: { username: "alice", password: PASSWORD } })
        expect(((yield* promise(() => wrong.ping())) as Any).error.code).toBe(40)
        const revoked = new SubsonicAPI({ url, auth: { apiKey: "nope" } })
        expect(((yield* promise(() => revoked.ping())) as Any).error.code).toBe(44)

        const extensions = conforms(yield* promise(() => byToken.getOpenSubsonicExtensions()))
        expect(extensions.openSubsonicExtensions.map((e) => e.name)).toContain("apiKeyAuthentication")
        conforms(yield* promise(() => byToken.getLicense()))
        expect(conforms(yield* promise(() => byToken.getMusicFolders())).musicFolders.musicFolder).toHaveLength(1)
        expect(conforms(yield* promise(() => byKey.getIndexes())).indexes.index!.length).toBeGreaterThan(0)
        expect(conforms(yield* promise(() => byKey.getArtists())).artists.index!.length).toBeGreaterThan(0)
        const artist = conforms(yield* promise(() => byPost.getArtist({ id: track.artist_id }))).artist
        expect(artist.id).toBe(track.artist_id)
        conforms(yield* promise(() => byToken.getArtistInfo({ id: track.artist_id })))
        conforms(yield* promise(() => byToken.getArtistInfo2({ id: track.artist_id })))
        const album = conforms(yield* promise(() => byToken.getAlbum({ id: track.album_id }))).album
        expect(album.song!.map((song) => song.id)).toContain(track.id)
        conforms(yield* promise(() => byToken.getAlbumInfo({ id: track.album_id })))
        conforms(yield* promise(() => byToken.getAlbumInfo2({ id: track.album_id })))
        expect(conforms(yield* promise(() => byToken.getSong({ id: track.id }))).song.id).toBe(track.id)
        const directory = conforms(yield* promise(() => byToken.getMusicDirectory({ id: track.album_id }))).directory
        expect(directory.child!.map((child) => child.id)).toContain(track.id)
        for (const type of [
          "random",
          "newest",
          "alphabeticalByName",
          "alphabeticalByArtist",
          "frequent",
          "recent",
        ] as const) {
          conforms(yield* promise(() => byToken.getAlbumList2({ type, size: 5 })))
          conforms(yield* promise(() => byToken.getAlbumList({ type, size: 5 })))
        }
        const byYear = conforms(
          yield* promise(() => byToken.getAlbumList2({ type: "byYear", fromYear: 2030, toYear: 1900, size: 50 })),
        ).albumList2.album!
        const years = byYear.map((entry) => entry.year!)
        expect(years).toEqual([...years].sort((a, b) => b - a))
        const genres = conforms(yield* promise(() => byToken.getGenres())).genres.genre!
        expect(genres.length).toBeGreaterThan(0)
        const genre = genres[0]!.value
        conforms(yield* promise(() => byToken.getAlbumList2({ type: "byGenre", genre, size: 50 })))
        conforms(yield* promise(() => byToken.getSongsByGenre({ genre, count: 50 })))
        conforms(yield* promise(() => byToken.getRandomSongs({ size: 5 })))
        const found = conforms(yield* promise(() => byToken.search3({ query: "static" }))).searchResult3
        expect(found.song!.length).toBeGreaterThan(0)
        conforms(yield* promise(() => byToken.search2({ query: "static" })))

        // Playlists, and bob can't reach alice's.
        const created = conforms(yield* promise(() => byToken.createPlaylist({ name: "Client", songId: [track.id] })))
        const playlistId = created.playlist.id
        conforms(
          yield* promise(() => byToken.updatePlaylist({ playlistId, name: "Client 2", songIdToAdd: [tracks[1]!.id] })),
        )
        const playlist = conforms(yield* promise(() => byToken.getPlaylist({ id: playlistId }))).playlist
        expect(playlist).toMatchObject({ name: "Client 2", songCount: 2 })
        expect(conforms(yield* promise(() => byToken.getPlaylists())).playlists.playlist!.map((p) => p.id)).toContain(
          playlistId,
        )
        const stolen = (yield* promise(() => asBob.getPlaylist({ id: playlistId }))) as Any
        expect(stolen.error.code).toBe(70)
        expect(JSON.stringify(stolen)).not.toContain("Client 2")
        conforms(yield* promise(() => byToken.deletePlaylist({ id: playlistId })))

        // Audio and covers are plain responses.
        const stream = yield* promise(() => byToken.stream({ id: track.id }))
        expect(stream.status).toBe(200)
        expect((yield* promise(() => stream.arrayBuffer())).byteLength).toBeGreaterThan(0)
        const download = yield* promise(() => byKey.download({ id: track.id }))
        expect(download.headers.get("content-disposition")).toContain("attachment")
        yield* promise(() => download.arrayBuffer())
        const cover = yield* promise(() => byToken.getCoverArt({ id: `al-${track.album_id}`, size: 100 }))
        yield* promise(() => cover.arrayBuffer())
        expect([200, 404].includes(cover.status) || cover.headers.get("content-type")?.includes("xml")).toBe(true)

        // Likes and plays.
        conforms(yield* promise(() => byToken.star({ id: track.id, albumId: track.album_id })))
        const starred = conforms(yield* promise(() => byToken.getStarred2())).starred2
        expect(starred.song!.map((song) => song.id)).toEqual([track.id])
        conforms(yield* promise(() => byToken.getStarred()))
        conforms(yield* promise(() => byToken.unstar({ id: track.id, albumId: track.album_id })))
        conforms(yield* promise(() => byToken.scrobble({ id: track.id, submission: false })))
        const playing = conforms(yield* promise(() => asBob.getNowPlaying())).nowPlaying.entry!
        expect(playing.map((entry) => entry.id)).toContain(track.id)
        conforms(yield* promise(() => byToken.scrobble({ id: track.id, submission: true })))
        conforms(yield* promise(() => byToken.getSimilarSongs({ id: track.id, count: 5 })))
        conforms(yield* promise(() => byToken.getSimilarSongs2({ id: track.artist_id, count: 5 })))
        conforms(yield* promise(() => byToken.getTopSongs({ artist: artist.name })))
        conforms(yield* promise(() => byToken.savePlayQueue({ id: [track.id], current: track.id, position: 1000 })))
        const queue = conforms(yield* promise(() => byToken.getPlayQueue())).playQueue
        expect(queue!.entry!.map((entry) => entry.id)).toEqual([track.id])
        expect(conforms(yield* promise(() => byToken.getUser({ username: "alice" }))).user.adminRole).toBe(true)
        expect(((yield* promise(() => asBob.getUser({ username: "alice" }))) as Any).error.code).toBe(50)
        conforms(yield* promise(() => byToken.getScanStatus()))
        expect(((yield* promise(() => asBob.startScan())) as Any).error.code).toBe(50)
        conforms(yield* promise(() => byToken.startScan()))
      }),
    )
  },
)
