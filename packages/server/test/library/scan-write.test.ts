import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Logger, LogLevel } from "effect"
import type { KnownIndex } from "../../src/library/scan/plan.js"
import { writeBatch } from "../../src/library/scan/write.js"
import { failed, noIndex, parsedFolder, ScanPhasesLive, scanned } from "./scanPhases.js"

const changesFor = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ entity: string; entity_id: string; operation: string }>`
      SELECT entity, entity_id, operation FROM library_changes WHERE entity_id = ANY(${ids as Array<string>})`,
  )

const tracksUnder = (folder: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: string; path: string; album_id: string; artist_id: string }>`
      SELECT id, path, album_id, artist_id FROM tracks WHERE directory = ${folder} ORDER BY path`,
  )

const errorsUnder = (folder: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ path: string; message: string }>`
      SELECT path, message FROM scan_errors WHERE path LIKE ${`${folder}/%`} ORDER BY path`,
  )

const knownAs = (paths: ReadonlyArray<string>, errors: ReadonlyArray<string> = []): KnownIndex => ({
  ...noIndex,
  tracks: new Map(paths.map((path) => [path, { sizeBytes: 1_000, mtimeMs: 1 }])),
  errors: new Map(errors.map((path) => [path, { sizeBytes: 10, mtimeMs: 1 }])),
})

layer(ScanPhasesLive, { timeout: "60 seconds" })("scan write", (it) => {
  it.effect(
    "a batch commits its folders' tracks, albums, artists and folder rows, and logs each as an upsert with them",
    () =>
      Effect.gen(function* () {
        const written = yield* writeBatch(noIndex, false, [
          parsedFolder(
            "Write/One",
            [
              scanned("Write/One/01.flac", { title: "First", artist: "Writer", album: "One" }),
              scanned("Write/One/02.flac", { title: "Second", artist: "Writer", album: "One" }),
            ],
            { path: "Write/One/cover.jpg", mtimeMs: 7 },
          ),
          parsedFolder("Write/Two", [scanned("Write/Two/01.flac", { title: "Third", artist: "Guest", album: "Two" })]),
        ])
        expect(written).toEqual({ added: 3, updated: 0, errors: 0 })
        const tracks = [...(yield* tracksUnder("Write/One")), ...(yield* tracksUnder("Write/Two"))]
        expect(tracks.map((track) => track.path)).toEqual([
          "Write/One/01.flac",
          "Write/One/02.flac",
          "Write/Two/01.flac",
        ])
        const sql = yield* SqlClient.SqlClient
        const folders = yield* sql<{ path: string; sidecar: string | null }>`
          SELECT path, sidecar FROM library_folders WHERE path LIKE 'Write/%' ORDER BY path`
        expect(folders).toEqual([
          { path: "Write/One", sidecar: "Write/One/cover.jpg" },
          { path: "Write/Two", sidecar: null },
        ])
        const ids = [
          ...tracks.map((track) => track.id),
          ...new Set(tracks.map((track) => track.album_id)),
          ...new Set(tracks.map((track) => track.artist_id)),
        ]
        const logged = yield* changesFor(ids)
        expect(logged).toHaveLength(ids.length)
        expect(new Set(logged.map((change) => change.operation))).toEqual(new Set(["upsert"]))
        expect(logged.filter((change) => change.entity === "track")).toHaveLength(3)
        expect(logged.filter((change) => change.entity === "album")).toHaveLength(2)
        expect(logged.filter((change) => change.entity === "artist")).toHaveLength(2)
      }),
  )

  it.effect("a rewritten track counts as updated only when its file changed, or in a full scan", () =>
    Effect.gen(function* () {
      const one = (mtimeMs: number) =>
        parsedFolder("Update", [scanned("Update/01.flac", { title: "Same", album: "Update" }, { mtimeMs })])
      expect(yield* writeBatch(noIndex, false, [one(1)])).toEqual({ added: 1, updated: 0, errors: 0 })
      const known = knownAs(["Update/01.flac"])
      const before = yield* tracksUnder("Update")
      expect(yield* writeBatch(known, false, [one(1)])).toEqual({ added: 0, updated: 0, errors: 0 })
      expect(yield* writeBatch(known, true, [one(1)])).toEqual({ added: 0, updated: 1, errors: 0 })
      expect(yield* writeBatch(known, false, [one(2)])).toEqual({ added: 0, updated: 1, errors: 0 })
      expect(yield* tracksUnder("Update")).toEqual(before) // same id, in place
    }),
  )

  it.effect("a file that cannot be read is stored as a scan error; once it reads, its error is cleared", () =>
    Effect.gen(function* () {
      const broken = yield* writeBatch(noIndex, false, [parsedFolder("Broken", [failed("Broken/01.mp3")])])
      expect(broken).toEqual({ added: 0, updated: 0, errors: 1 })
      expect(yield* errorsUnder("Broken")).toEqual([
        { path: "Broken/01.mp3", message: "not a recognisable audio file" },
      ])
      const mended = yield* writeBatch(knownAs([], ["Broken/01.mp3"]), false, [
        parsedFolder("Broken", [scanned("Broken/01.mp3", { title: "Mended" }, { mtimeMs: 2 })]),
      ])
      expect(mended).toEqual({ added: 1, updated: 0, errors: 0 })
      expect(yield* errorsUnder("Broken")).toEqual([])
      expect((yield* tracksUnder("Broken")).map((track) => track.path)).toEqual(["Broken/01.mp3"])
    }),
  )

  it.effect(
    "a batch the database refuses is retried folder by folder; a folder that still fails becomes scan errors for its files",
    () =>
      Effect.gen(function* () {
        // A duration no int column holds: PostgreSQL refuses the track row, but not the error row.
        const written = yield* writeBatch(noIndex, false, [
          parsedFolder("Refused/Good", [scanned("Refused/Good/01.flac", { title: "Fine", album: "Good" })]),
          parsedFolder("Refused/Bad", [
            scanned("Refused/Bad/01.flac", { title: "Endless", album: "Bad", duration: 1e10 }),
            failed("Refused/Bad/02.flac"),
          ]),
        ]).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.None)))
        expect(written).toEqual({ added: 1, updated: 0, errors: 2 })
        expect((yield* tracksUnder("Refused/Good")).map((track) => track.path)).toEqual(["Refused/Good/01.flac"])
        expect(yield* tracksUnder("Refused/Bad")).toEqual([])
        expect(yield* errorsUnder("Refused/Bad")).toEqual([
          { path: "Refused/Bad/01.flac", message: "its tags could not be stored; see the server log" },
          { path: "Refused/Bad/02.flac", message: "its tags could not be stored; see the server log" },
        ])
      }),
  )
})
