/**
 * Upgrading keeps everything (issue 31, item 12): a database of the schema before the library model (migrations
 * 0001–0014), holding what the old scanner wrote for real files and a user's likes, playlist and plays, is migrated
 * and rescanned by the server: ids that still mean the same thing are kept, and nothing the user made is lost.
 *
 * The old scanner filed an album with no album-artist tag and several track-artist spellings under "Various
 * Artists" (album_key `various artists\u001f<title>`), gave every `X feat. Y` spelling its own artist row, and
 * stored no disc number as NULL.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Migrator, SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, ArtistId, PlaylistId, searchKeyOf, sortNameOf } from "@tonearm/core"
import { Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { taggedFile } from "../../fixtures/synthetic.js"
import type { TagSet } from "../../fixtures/tags.js"
import type { AudioFormat } from "../../fixtures/types.js"
import { hashPassword } from "../../src/accounts/credentials.js"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { migrations } from "../../src/db/Migrations.js"
import { HttpAppLive } from "../../src/main.js"
import { logIn, PASSWORD } from "../support/accounts.js"
import { adminQuery, databaseUrl } from "../support/adminDatabase.js"
import { scanNow } from "../support/library.js"
import { QuietLogs, testConfig } from "../support/TestServer.js"

// ---- the library: real files ----

const FILES: Record<string, TagSet> = {
  // No album-artist tag, two spellings of Alice with guests (old: a Various Artists compilation).
  "Alice/Duo/01 One.mp3": { title: "One", artist: "Alice feat. Bob", album: "Duo", track: { no: 1 } },
  "Alice/Duo/02 Two.mp3": { title: "Two", artist: "Alice feat. Bob", album: "Duo", track: { no: 2 } },
  "Alice/Duo/03 Three.flac": { title: "Three", artist: "Alice feat. Carol", album: "Duo", track: { no: 3 } },
  // Dora has a row of her own; "Dora feat. Eve" had one too (old: Various Artists again).
  "Dora/Live/01 Open.mp3": { title: "Open", artist: "Dora", album: "Live", track: { no: 1 } },
  "Dora/Live/02 Middle.mp3": { title: "Middle", artist: "Dora", album: "Live", track: { no: 2 } },
  "Dora/Live/03 Encore.flac": { title: "Encore", artist: "Dora feat. Eve", album: "Live", track: { no: 3 } },
  // Tagged and unchanged in meaning (its album key still changes: the new key carries the year).
  "Fay/Third/01 Only.ogg": {
    title: "Only",
    artist: "Fay",
    albumArtist: "Fay",
    album: "Third",
    date: "2003",
    track: { no: 1 },
  },
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-upgrade-"))
for (const [relative, tags] of Object.entries(FILES)) {
  const target = path.join(root, relative)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.writeFileSync(target, await taggedFile(path.extname(relative).slice(1) as AudioFormat, tags))
}

// ---- the old database: migrations 0001–0014 and the rows the old scanner and a user left ----

const OLD_MIGRATIONS = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0015"))

const ids = {
  user: randomUUID(),
  various: randomUUID(),
  aliceBob: randomUUID(),
  aliceCarol: randomUUID(),
  dora: randomUUID(),
  doraEve: randomUUID(),
  fay: randomUUID(),
  duo: randomUUID(),
  live: randomUUID(),
  third: randomUUID(),
  playlist: randomUUID(),
  tracks: Object.fromEntries(Object.keys(FILES).map((relative) => [relative, randomUUID()])) as Record<string, string>,
}
const trackId = (relative: string) => ids.tracks[relative]!

const OLD_ARTISTS: ReadonlyArray<readonly [string, string]> = [
  [ids.various, "Various Artists"],
  [ids.aliceBob, "Alice feat. Bob"],
  [ids.aliceCarol, "Alice feat. Carol"],
  [ids.dora, "Dora"],
  [ids.doraEve, "Dora feat. Eve"],
  [ids.fay, "Fay"],
]
/** Old album rows: [id, album_key, title, artist, compilation, year]. */
const OLD_ALBUMS: ReadonlyArray<readonly [string, string, string, string, boolean, number]> = [
  [ids.duo, "various artists\u001fduo", "Duo", ids.various, true, 0],
  [ids.live, "various artists\u001flive", "Live", ids.various, true, 0],
  [ids.third, "fay\u001fthird", "Third", ids.fay, false, 2003],
]
const OLD_TRACK_ARTIST: Record<string, string> = {
  "Alice/Duo/01 One.mp3": ids.aliceBob,
  "Alice/Duo/02 Two.mp3": ids.aliceBob,
  "Alice/Duo/03 Three.flac": ids.aliceCarol,
  "Dora/Live/01 Open.mp3": ids.dora,
  "Dora/Live/02 Middle.mp3": ids.dora,
  "Dora/Live/03 Encore.flac": ids.doraEve,
  "Fay/Third/01 Only.ogg": ids.fay,
}
const albumOf = (relative: string) =>
  relative.startsWith("Alice/") ? ids.duo : relative.startsWith("Dora/") ? ids.live : ids.third

const writeOldRows = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = new Date("2024-05-01T12:00:00Z")
  for (const [id, name] of OLD_ARTISTS) {
    const sortName = sortNameOf(name)
    yield* sql`
      INSERT INTO indexed_artists (id, name, name_key, sort_name, sort_key, search_key, created_at, updated_at)
      VALUES (${id}, ${name}, ${name.toLowerCase()}, ${sortName}, ${searchKeyOf(sortName)}, ${searchKeyOf(name)},
              ${now}, ${now})`
  }
  for (const [id, key, title, artist, compilation, year] of OLD_ALBUMS) {
    yield* sql`
      INSERT INTO indexed_albums (id, album_key, title, artist_id, search_key, release_date, year, compilation,
                                  track_count, duration_ms, added_at, updated_at)
      VALUES (${id}, ${key}, ${title}, ${artist}, ${searchKeyOf(title)}, ${year > 0 ? `${year}-01-01` : null}, ${year},
              ${compilation}, ${Object.keys(FILES).filter((file) => albumOf(file) === id).length}, 0, ${now}, ${now})`
  }
  for (const [relative, tags] of Object.entries(FILES)) {
    const stat = fs.statSync(path.join(root, relative))
    yield* sql`
      INSERT INTO indexed_tracks (id, path, directory, size_bytes, mtime_ms, title, search_key, album_id, artist_id,
                                  track_number, disc_number, duration_ms, file_format, added_at, updated_at)
      VALUES (${trackId(relative)}, ${relative}, ${path.posix.dirname(relative)}, ${stat.size},
              ${Math.floor(stat.mtimeMs)}, ${tags.title}, ${searchKeyOf(tags.title)}, ${albumOf(relative)},
              ${OLD_TRACK_ARTIST[relative]!}, ${tags.track?.no ?? null}, ${null}, 500,
              ${path.extname(relative).slice(1)}, ${now}, ${now})`
  }
  for (const folder of ["Alice/Duo", "Dora/Live", "Fay/Third"]) {
    yield* sql`INSERT INTO library_folders (path, scanned_at) VALUES (${folder}, ${now})`
  }
  // A user, with likes on albums, tracks and artists, a playlist and plays.
  yield* sql`
    INSERT INTO users (id, username, password_hash, is_admin, created_at, updated_at)
    VALUES (${ids.user}, 'olduser', ${yield* hashPassword(PASSWORD, 1)}, true, ${now}, ${now})`
  const likes: ReadonlyArray<readonly [string, string]> = [
    ["album", ids.duo],
    ["album", ids.live],
    ["album", ids.third],
    ["track", trackId("Alice/Duo/02 Two.mp3")],
    ["track", trackId("Dora/Live/03 Encore.flac")],
    ["artist", ids.aliceBob],
    ["artist", ids.aliceCarol],
    ["artist", ids.dora],
    ["artist", ids.doraEve],
    ["artist", ids.fay],
  ]
  for (const [entity, id] of likes) {
    yield* sql`INSERT INTO likes (user_id, entity, entity_id, liked_at) VALUES (${ids.user}, ${entity}, ${id}, ${now})`
  }
  yield* sql`
    INSERT INTO playlists (id, owner_id, name, created_at, updated_at)
    VALUES (${ids.playlist}, ${ids.user}, 'Old mix', ${now}, ${now})`
  for (const [position, relative] of PLAYLIST.entries()) {
    yield* sql`
      INSERT INTO playlist_tracks (playlist_id, track_id, position, added_at)
      VALUES (${ids.playlist}, ${trackId(relative)}, ${position}, ${now})`
  }
  for (const [i, relative] of PLAYS.entries()) {
    const started = new Date(now.getTime() + i * 60_000)
    yield* sql`
      INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
                               duration_played_ms, track_duration_ms, completion, created_at)
      VALUES (${ids.user}, ${trackId(relative)}, ${OLD_TRACK_ARTIST[relative]!}, ${albumOf(relative)}, 'web',
              ${started}, ${new Date(started.getTime() + 500)}, 500, 500, 1, ${started})`
  }
})

const PLAYLIST = [
  "Alice/Duo/01 One.mp3",
  "Alice/Duo/03 Three.flac",
  "Dora/Live/03 Encore.flac",
  "Fay/Third/01 Only.ogg",
]
const PLAYS = ["Alice/Duo/01 One.mp3", "Alice/Duo/01 One.mp3", "Alice/Duo/03 Three.flac", "Dora/Live/03 Encore.flac"]

/** The server, booted on that database: it runs the migrations after 0014 as it starts. */
const UpgradedServerLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const adminUrl = inject("adminDatabaseUrl")
    const name = `tonearm_t_${randomUUID().replaceAll("-", "")}`
    yield* Effect.acquireRelease(adminQuery(adminUrl, `CREATE DATABASE ${name}`), () =>
      adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.orDie),
    ).pipe(Effect.orDie)
    const url = Redacted.make(databaseUrl(adminUrl, name))
    yield* Effect.gen(function* () {
      const applied = yield* Migrator.make({})({ loader: Migrator.fromRecord(OLD_MIGRATIONS) })
      expect(applied.map(([id]) => id).at(-1)).toBe(14)
      yield* writeOldRows
    }).pipe(Effect.provide(pgClientLayer(url)), Effect.orDie)
    return HttpApiBuilder.serve().pipe(
      Layer.provideMerge(HttpAppLive),
      Layer.provideMerge(NodeHttpServer.layerTest),
      Layer.provideMerge(makeDatabaseLive(pgClientLayer(url))),
      Layer.provideMerge(testConfig({ libraryDir: root })),
      Layer.provide(QuietLogs),
    )
  }),
)

layer(UpgradedServerLive, { excludeTestServices: true, timeout: "180 seconds" })(
  "upgrading to the library model",
  (it) => {
    it.effect(
      "upgrade keeps everything: every track and album id, likes, playlist entries and plays; an artist split into credits keeps its id (and likes) on its first credited name that has no row of its own",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // Migrated: one credit per track as before, no disc number is disc 1, every file due for a re-read.
          const migrated = yield* sql<{ n: number; discs: number; due: number }>`
          SELECT count(*)::int AS n, count(*) FILTER (WHERE disc_number = 1)::int AS discs,
                 count(*) FILTER (WHERE mtime_ms = -1)::int AS due
          FROM indexed_tracks`
          expect(migrated[0]).toEqual({ n: 7, discs: 7, due: 7 })

          const { client } = yield* logIn("olduser")
          const summary = yield* scanNow()
          expect([summary.added, summary.errors]).toEqual([0, 0])

          // Every track keeps its id (same path, same file).
          const tracks = yield* sql<{ id: string; path: string }>`SELECT id, path FROM tracks ORDER BY path`
          expect(Object.fromEntries(tracks.map((row) => [row.path, row.id]))).toEqual(ids.tracks)

          // The albums keep their ids; Duo and Live are their artists' own albums now, not Various Artists.
          const duo = yield* client.library.album({ path: { id: AlbumId.make(ids.duo) } })
          const live = yield* client.library.album({ path: { id: AlbumId.make(ids.live) } })
          const third = yield* client.library.album({ path: { id: AlbumId.make(ids.third) } })
          expect([duo.title, duo.artist_name, duo.artist_id]).toEqual(["Duo", "Alice", ids.aliceBob])
          expect([live.title, live.artist_name, live.artist_id]).toEqual(["Live", "Dora", ids.dora])
          expect([third.title, third.artist_name, third.artist_id]).toEqual(["Third", "Fay", ids.fay])
          expect(duo.tracks.map((track) => [track.id, track.disc_number])).toEqual(
            ["Alice/Duo/01 One.mp3", "Alice/Duo/02 Two.mp3", "Alice/Duo/03 Three.flac"].map((file) => [
              trackId(file),
              1,
            ]),
          )
          const albums = yield* client.library.albums({ urlParams: { limit: 500 } })
          expect(albums.items.map((album) => album.id).sort()).toEqual([ids.duo, ids.live, ids.third].sort())
          expect(albums.items.filter((album) => album.artist_name === "Various Artists")).toEqual([])

          // The split artists: "Alice feat. Bob" (the most tracks) is Alice now; "Alice feat. Carol" is Carol (Alice
          // was taken); "Dora feat. Eve" is Eve (Dora has her own row). Their credits point at those ids.
          const names = new Map<string, string>(
            (yield* client.library.artists({ urlParams: { limit: 500 } })).items.map((artist) => [
              artist.id,
              artist.name,
            ]),
          )
          expect(names.get(ids.aliceBob)).toBe("Alice")
          expect(names.get(ids.aliceCarol)).toBe("Carol")
          expect(names.get(ids.dora)).toBe("Dora")
          expect(names.get(ids.doraEve)).toBe("Eve")
          expect(names.get(ids.fay)).toBe("Fay")
          expect(names.has(ids.various)).toBe(false)
          expect(duo.tracks.map((track) => track.artists.map((artist) => [artist.id, artist.role]))).toEqual([
            [
              [ids.aliceBob, "main"],
              [expect.any(String), "featured"],
            ],
            [
              [ids.aliceBob, "main"],
              [expect.any(String), "featured"],
            ],
            [
              [ids.aliceBob, "main"],
              [ids.aliceCarol, "featured"],
            ],
          ])
          expect(live.tracks.at(-1)!.artists.map((artist) => [artist.id, artist.name])).toEqual([
            [ids.dora, "Dora"],
            [ids.doraEve, "Eve"],
          ])

          // Nothing the user made is lost, and all of it resolves.
          const liked = yield* client.likes.list()
          expect(liked.albums.map((album) => album.id).sort()).toEqual([ids.duo, ids.live, ids.third].sort())
          expect(liked.tracks.map((track) => track.id).sort()).toEqual(
            [trackId("Alice/Duo/02 Two.mp3"), trackId("Dora/Live/03 Encore.flac")].sort(),
          )
          expect(liked.artists.map((artist) => [artist.id, artist.name]).sort()).toEqual(
            [
              [ids.aliceBob, "Alice"],
              [ids.aliceCarol, "Carol"],
              [ids.dora, "Dora"],
              [ids.doraEve, "Eve"],
              [ids.fay, "Fay"],
            ].sort(),
          )
          const playlist = yield* client.playlists.get({ path: { id: PlaylistId.make(ids.playlist) } })
          expect(playlist.tracks.map((entry) => entry.track.id)).toEqual(PLAYLIST.map(trackId))
          const history = yield* client.plays.history({ urlParams: { limit: 50 } })
          expect(history.items.map((play) => play.track_id).sort()).toEqual(PLAYS.map(trackId).sort())
          const top = yield* client.plays.topTracks({ path: { id: ArtistId.make(ids.aliceBob) } })
          expect(top.tracks.map((track) => track.id)).toContain(trackId("Alice/Duo/01 One.mp3"))
          // A rescan changes nothing more.
          yield* scanNow(true)
          const again = yield* client.library.artists({ urlParams: { limit: 500 } })
          expect(new Map(again.items.map((artist) => [artist.id, artist.name]))).toEqual(names)
        }),
    )
  },
)
