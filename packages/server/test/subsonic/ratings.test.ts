import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { type Auth, fails, ok, onceFails, onceOk, withToken } from "./support.js"

/** Subsonic ratings: setRating (0 removes) and `userRating` on songs, albums and artists, per listener. */
const { root } = await fixtureLibrary()

// biome-ignore lint/suspicious/noExplicitAny: answers are schema-checked in support.ts; the assertions read them loosely
type Json = Record<string, any>

const firstTrack = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ id: string; album_id: string; artist_id: string }>`
      SELECT id, album_id, artist_id FROM tracks ORDER BY path LIMIT 1`,
    ([row]) => row!,
  ),
)

const subsonicAuth = (who: SignedIn) =>
  Effect.map(rawJson("POST", "/api/me/subsonic-password", {}, who.token), (answer) =>
    withToken(who.user.username, (answer.json as Json).password),
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("subsonic ratings", (it) => {
  it.scoped("setRating sets, changes and removes a rating; userRating shows it to its listener only", () =>
    Effect.gen(function* () {
      const A: Auth = yield* subsonicAuth(yield* aUser("rater"))
      const B: Auth = yield* subsonicAuth(yield* aUser("other"))
      const ids = yield* firstTrack

      yield* onceOk("setRating", { id: ids.id, rating: 4 }, A)
      yield* onceOk("setRating", { id: ids.album_id, rating: 5 }, A)
      yield* onceOk("setRating", { id: ids.artist_id, rating: 2 }, A)
      const song = (yield* ok("getSong", { id: ids.id }, A)).song as Json
      expect(song.userRating).toBe(4)
      // A rating is not a star.
      expect(song.starred).toBeUndefined()
      const album = (yield* ok("getAlbum", { id: ids.album_id }, A)).album as Json
      expect(album.userRating).toBe(5)
      expect((album.song as Array<Json>).find((entry) => entry.id === ids.id)?.userRating).toBe(4)
      const artist = (yield* ok("getArtist", { id: ids.artist_id }, A)).artist as Json
      expect(artist.userRating).toBe(2)
      const listed = (yield* ok("getAlbumList2", { type: "alphabeticalByName", size: 500 }, A)).albumList2 as Json
      expect((listed.album as Array<Json>).find((entry) => entry.id === ids.album_id)?.userRating).toBe(5)
      const directory = (yield* ok("getMusicDirectory", { id: ids.album_id }, A)).directory as Json
      expect((directory.child as Array<Json>).find((entry) => entry.id === ids.id)?.userRating).toBe(4)

      // Another listener sees none of it.
      expect(((yield* ok("getSong", { id: ids.id }, B)).song as Json).userRating).toBeUndefined()
      expect(((yield* ok("getAlbum", { id: ids.album_id }, B)).album as Json).userRating).toBeUndefined()

      // Changing, then removing (0); removing what is not rated is still ok.
      yield* onceOk("setRating", { id: ids.id, rating: 1 }, A)
      expect(((yield* ok("getSong", { id: ids.id }, A)).song as Json).userRating).toBe(1)
      yield* onceOk("setRating", { id: ids.id, rating: 0 }, A)
      yield* onceOk("setRating", { id: ids.id, rating: 0 }, A, "xml")
      expect(((yield* ok("getSong", { id: ids.id }, A)).song as Json).userRating).toBeUndefined()
      const rows = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ entity: string; rating: number }>`SELECT entity, rating FROM ratings ORDER BY entity`,
      )
      expect(rows).toEqual([
        { entity: "album", rating: 5 },
        { entity: "artist", rating: 2 },
      ])
    }),
  )

  it.scoped("a rating outside 0–5 is error 0, an unknown or foreign id 70, a missing parameter 10", () =>
    Effect.gen(function* () {
      const rater = yield* aUser("bad-rater")
      const A = yield* subsonicAuth(rater)
      const ids = yield* firstTrack
      yield* onceFails("setRating", { id: ids.id, rating: 6 }, A, 0)
      yield* onceFails("setRating", { id: ids.id, rating: -1 }, A, 0)
      yield* onceFails("setRating", { id: ids.id, rating: "x" }, A, 0)
      yield* onceFails("setRating", { id: "00000000-0000-4000-8000-000000000000", rating: 3 }, A, 70)
      yield* onceFails("setRating", { id: "not-an-id", rating: 3 }, A, 70)
      yield* fails("setRating", { rating: 3 }, A, 10)
      yield* fails("setRating", { id: ids.id }, A, 10)
      const count = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ratings WHERE user_id = ${rater.user.id}`,
      )
      expect(count[0]!.n).toBe(0)
    }),
  )
})
