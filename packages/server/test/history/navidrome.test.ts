import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, type ImportStatus, TrackId } from "@tonearm/core"
import Database from "better-sqlite3"
import { DateTime, Effect, Layer, Schedule } from "effect"
import { navidromeFixtureOf, writeNavidromeDb } from "../../fixtures/navidromeDb.js"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import { createAndLogIn, type SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { playsOf, upload } from "./importSupport.js"

/**
 * The admin's Navidrome import over HTTP (issue 26): a navidrome.db written from the fixture library
 * (fixtures/navidromeDb.ts) brings each user's stars, ratings, play counts and playlists, matched by username.
 */
const { root, manifest } = await fixtureLibrary()
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-navidrome-test-"))
const fixture = navidromeFixtureOf(manifest)
const dbFile = path.join(scratch, "navidrome.db")
writeNavidromeDb(dbFile, fixture.spec)
const bytes = fs.readFileSync(dbFile)

const at = (text: string) => new Date(text).getTime()

/** Uploads a database as the admin; answers the import id (the test fails on anything but 202). */
const startNavidrome = (who: SignedIn, file: Uint8Array) =>
  Effect.gen(function* () {
    const response = yield* upload(
      who,
      file,
      { source: "navidrome_db" },
      { path: "/api/admin/imports", fileName: "navidrome.db" },
    )
    if (response.status !== 202) return yield* Effect.dieMessage(`upload answered ${response.status}: ${response.text}`)
    return (response.json as { id: string }).id
  })

const finishedAdmin = (who: SignedIn, id: string) =>
  Effect.gen(function* () {
    const status = yield* who.client.adminImports.get({ path: { id: id as ImportStatus["id"] } })
    if (status.state === "queued" || status.state === "running") return yield* Effect.fail("pending" as const)
    return status
  }).pipe(
    Effect.retry({ while: (error) => error === "pending", schedule: Schedule.spaced("100 millis"), times: 1_200 }),
    Effect.orDie,
  )

const trackIdAt = (relative: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; album_id: string; artist_id: string; duration_ms: number }>`
      SELECT id, album_id, artist_id, duration_ms FROM tracks WHERE path = ${relative}`,
      ([row]) => row!,
    ),
  )

const likesOf = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ entity: string; entity_id: string; liked_at: Date }>`
      SELECT entity, entity_id, liked_at FROM likes WHERE user_id = ${userId} ORDER BY entity, entity_id`,
  )
const ratingsOf = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ entity: string; entity_id: string; rating: number }>`
      SELECT entity, entity_id, rating FROM ratings WHERE user_id = ${userId} ORDER BY entity, entity_id`,
  )
const playlistsOf = (who: SignedIn) =>
  Effect.gen(function* () {
    const rows = yield* who.client.playlists.list()
    const mine = rows.filter((row) => row.system_variant === null)
    return yield* Effect.forEach(mine, (row) =>
      Effect.map(who.client.playlists.get({ path: { id: row.id } }), (detail) => ({
        name: detail.name,
        tracks: detail.tracks.map((entry) => entry.track.id as string),
      })),
    )
  })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "240 seconds",
})("navidrome import", (it) => {
  it.effect(
    "stars, ratings, play counts and playlists per user; unknown users named; nothing existing lost; a re-import adds nothing",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const alice = yield* createAndLogIn(admin.client, "alice")
        const bob = yield* createAndLogIn(admin.client, "Bob") // usernames match whatever their case
        const favourite = yield* trackIdAt(fixture.paths.favourite)
        const once = yield* trackIdAt(fixture.paths.once)
        const byMbid = yield* trackIdAt(fixture.paths.byMbid)
        const byTags = yield* trackIdAt(fixture.paths.byTags)
        const bobStarred = yield* trackIdAt(fixture.paths.bobStarred)
        const bobPlayed = yield* trackIdAt(fixture.paths.bobPlayed)

        // What Alice has already: a like, a play and a playlist of her own that shares a name with Navidrome's.
        yield* alice.client.likes.likeTrack({ path: { id: TrackId.make(once.id) } })
        const likedBefore = (yield* likesOf(alice.user.id))[0]!.liked_at
        yield* alice.client.plays.report({
          payload: {
            type: "play_offline",
            track_id: TrackId.make(once.id),
            client_id: "web",
            at: DateTime.unsafeMake(Date.now() - 60_000),
            duration_played_ms: 60_000,
          },
        })
        const own = yield* alice.client.playlists.create({
          payload: { name: "Road Trip", track_ids: [TrackId.make(byTags.id)] },
        })

        const id = yield* startNavidrome(admin, bytes)
        const status = yield* finishedAdmin(admin, id)
        expect(status.state).toBe("done")
        expect(status.source).toBe("navidrome_db")
        // Alice: 7 annotations (one on a file the library lacks), Road Trip's 4 entries (one missing); Bob: 2 + 1.
        expect(status).toMatchObject({ total: 14, matched: 12, unmatched: 2, duplicates: 0 })
        expect(status.message).toContain("alice, Bob")
        expect(status.message).toContain("no account with that username: ghost")
        expect(status.message).toContain("1 smart playlist not imported")

        // Likes with their Navidrome times; the like Alice had keeps its own time.
        const aliceLikes = yield* likesOf(alice.user.id)
        const likedAt = (entity: string, entityId: string) =>
          aliceLikes.find((like) => like.entity === entity && like.entity_id === entityId)?.liked_at.getTime()
        expect(aliceLikes).toHaveLength(5)
        expect(likedAt("track", favourite.id)).toBe(at("2023-05-01T10:00:00Z"))
        expect(likedAt("track", byMbid.id)).toBe(at("2024-04-01T20:05:00Z"))
        expect(likedAt("track", once.id)).toBe(likedBefore.getTime())
        expect(likedAt("album", favourite.album_id)).toBe(at("2023-05-02T10:00:00Z"))
        expect(likedAt("artist", favourite.artist_id)).toBe(at("2023-05-03T10:00:00Z"))
        expect((yield* likesOf(bob.user.id)).map((like) => [like.entity_id, like.liked_at.getTime()])).toEqual([
          [bobStarred.id, at("2022-12-24T18:00:00Z")],
        ])

        // Ratings kept, and shown to Subsonic apps as userRating (ratings.test.ts covers the protocol).
        expect(yield* ratingsOf(alice.user.id)).toEqual(
          [
            { entity: "album", entity_id: favourite.album_id, rating: 5 },
            { entity: "track", entity_id: favourite.id, rating: 4 },
            { entity: "track", entity_id: byTags.id, rating: 2 },
          ].sort((a, b) => (a.entity + a.entity_id).localeCompare(b.entity + b.entity_id)),
        )
        expect(yield* ratingsOf(bob.user.id)).toEqual([])

        // Plays: the play count spread back from the last play, whole tracks, marked as imported.
        const alicePlays = (yield* playsOf(alice.user.id)).filter((play) => play.source === "import:navidrome_db")
        const timesOf = (trackId: string) =>
          alicePlays.filter((play) => play.track_id === trackId).map((play) => play.started_at.getTime())
        const favouriteTimes = timesOf(favourite.id)
        expect(favouriteTimes).toHaveLength(3)
        expect(favouriteTimes[2]).toBe(at("2024-03-10T12:00:00Z"))
        expect(favouriteTimes[2]! - favouriteTimes[1]!).toBe(favouriteTimes[1]! - favouriteTimes[0]!)
        expect(favouriteTimes[0]!).toBeGreaterThan(at("2024-01-01T00:00:00Z"))
        expect(timesOf(once.id)).toEqual([at("2024-02-01T08:30:00Z")])
        expect(timesOf(byMbid.id)).toHaveLength(2)
        expect(timesOf(byMbid.id)[1]).toBe(at("2024-04-01T20:00:00Z"))
        expect(timesOf(byTags.id)).toEqual([at("2024-04-02T07:00:00Z")])
        expect(alicePlays).toHaveLength(7)
        for (const play of alicePlays) {
          expect(play).toMatchObject({
            client_id: "import",
            skipped: false,
            pick_kind: null,
            device_class: null,
            duration_played_ms: play.track_duration_ms,
          })
        }
        // Alice's own play is still there.
        expect((yield* playsOf(alice.user.id)).filter((play) => play.client_id === "web")).toHaveLength(1)
        const bobPlays = yield* playsOf(bob.user.id)
        expect(bobPlays.map((play) => play.track_id)).toEqual([bobPlayed.id, bobPlayed.id, bobPlayed.id, bobPlayed.id])
        expect(bobPlays.at(-1)!.started_at.getTime()).toBe(at("2024-05-05T05:05:05Z"))

        // Playlists: recreated in order without the missing entry; the smart one and Alice's own left alone.
        const alicePlaylists = yield* playlistsOf(alice)
        expect(alicePlaylists).toHaveLength(2)
        expect(alicePlaylists).toContainEqual({ name: "Road Trip", tracks: [byTags.id] })
        expect(alicePlaylists).toContainEqual({ name: "Road Trip", tracks: [bobPlayed.id, once.id, favourite.id] })
        expect(yield* playlistsOf(bob)).toEqual([{ name: "Bob's Mix", tracks: [bobStarred.id] }])
        expect((yield* alice.client.playlists.get({ path: { id: own.id } })).tracks.map((t) => t.track.id)).toEqual([
          byTags.id,
        ])

        // The entries that matched nothing are listed on the import, for admins only.
        const importId = id as ImportStatus["id"]
        const misses = (yield* admin.client.adminImports.unmatched({ path: { id: importId }, urlParams: {} })).items
        expect(misses.map(({ artist, title, reason }) => ({ artist, title, reason }))).toEqual([
          { artist: "Nowhere Band", title: fixture.missingTitle, reason: "no_match" },
          { artist: "Nowhere Band", title: fixture.missingTitle, reason: "no_match" },
        ])

        const refused = yield* alice.client.adminImports
          .unmatched({ path: { id: importId }, urlParams: {} })
          .pipe(Effect.flip)
        expect(refused._tag).toBe("Forbidden")
        const ownList = yield* alice.client.imports
          .unmatched({ path: { id: importId }, urlParams: {} })
          .pipe(Effect.flip)
        expect(ownList._tag).toBe("NotFound")

        // The same database again: every play is a duplicate, nothing is added anywhere.
        const again = yield* finishedAdmin(admin, yield* startNavidrome(admin, bytes))
        expect(again).toMatchObject({ state: "done", total: 14, matched: 12, unmatched: 2, duplicates: 11 })
        expect(yield* likesOf(alice.user.id)).toEqual(aliceLikes)
        expect(yield* playsOf(alice.user.id)).toHaveLength(8)
        expect(yield* playsOf(bob.user.id)).toHaveLength(4)
        expect(yield* playlistsOf(alice)).toHaveLength(2)
        expect(yield* playlistsOf(bob)).toHaveLength(1)
        // An album like is a like of the album (the contract's likes list shows it).
        const liked = yield* alice.client.likes.list()
        expect(liked.albums.map((album) => album.id)).toEqual([AlbumId.make(favourite.album_id)])
      }),
    240_000,
  )

  it.effect(
    "paths relative to the library (Navidrome since 2025) match the same files",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const carol = yield* createAndLogIn(admin.client, "carol")
        const dave = yield* createAndLogIn(admin.client, "dave")
        const relative = navidromeFixtureOf(manifest, { pathStyle: "relative", userNames: ["carol", "dave", "erin"] })
        const file = path.join(scratch, "relative.db")
        writeNavidromeDb(file, relative.spec)
        const status = yield* finishedAdmin(admin, yield* startNavidrome(admin, fs.readFileSync(file)))
        expect(status).toMatchObject({ state: "done", total: 14, matched: 12, unmatched: 2, duplicates: 0 })
        expect(status.message).toContain("erin")
        expect(yield* playsOf(carol.user.id)).toHaveLength(7)
        expect(yield* playsOf(dave.user.id)).toHaveLength(4)
      }),
    120_000,
  )

  it.effect("only an admin may import; a file that is not a Navidrome database is 400, never 500, and no job", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const listener = yield* aUser("listener")
      const refused = yield* upload(listener, bytes, { source: "navidrome_db" }, { path: "/api/admin/imports" })
      expect(refused.status).toBe(403)

      const notSqlite = yield* upload(
        admin,
        "just some text",
        { source: "navidrome_db" },
        { path: "/api/admin/imports" },
      )
      expect(notSqlite.status).toBe(400)
      expect((notSqlite.json as { error: { code: string } }).error.code).toBe("invalid_request")

      // The SQLite header, then garbage: a corrupt database.
      const corrupt = Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(8192, 0xab)])
      const broken = yield* upload(admin, corrupt, { source: "navidrome_db" }, { path: "/api/admin/imports" })
      expect(broken.status).toBe(400)
      expect((broken.json as { error: { code: string } }).error.code).toBe("invalid_request")

      // A healthy SQLite database that is not Navidrome's.
      const other = path.join(scratch, "other.db")
      const db = new Database(other)
      db.exec("CREATE TABLE notes (id integer PRIMARY KEY, body text); INSERT INTO notes (body) VALUES ('hi')")
      db.close()
      const foreign = yield* upload(
        admin,
        fs.readFileSync(other),
        { source: "navidrome_db" },
        { path: "/api/admin/imports" },
      )
      expect(foreign.status).toBe(400)
      expect((foreign.json as { error: { message: string } }).error.message).toContain("not a Navidrome database")

      const jobs = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM imports WHERE requested_by = ${listener.user.id}`,
      )
      expect(jobs[0]!.n).toBe(0)
      // The admin's status route is the admin's only.
      const anyId = "00000000-0000-4000-8000-000000000000"
      expect((yield* raw("GET", `/api/admin/imports/${anyId}`, { token: listener.token })).status).toBe(403)
      expect((yield* raw("GET", `/api/admin/imports/${anyId}`, { token: admin.token })).status).toBe(404)
    }),
  )
})
