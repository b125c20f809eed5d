import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CatalogRepository } from "../../src/library/CatalogRepository.js"
import { plan } from "../../src/library/scan/plan.js"
import { tidy } from "../../src/library/scan/tidy.js"
import { writeBatch } from "../../src/library/scan/write.js"
import type { WalkResult } from "../../src/library/walk.js"
import { failed, noIndex, parsedFolder, ScanPhasesLive, scanned } from "./scanPhases.js"

/** The index as it stands, read the way the walk phase reads it. */
const knownNow = Effect.gen(function* () {
  const catalog = yield* CatalogRepository
  return {
    tracks: yield* catalog.knownTracks(),
    errors: yield* catalog.knownErrors(),
    folders: yield* catalog.knownFolders(),
  }
})

const lastSeq = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ seq: string | null }>`SELECT max(seq)::text AS seq FROM library_changes`,
    (rows) => rows[0]?.seq ?? null,
  ),
)

/** A library folder on disk that is not empty: tidy checks it once more before marking anything missing. */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-tidy-"))
fs.mkdirSync(path.join(root, "Kept"))
fs.writeFileSync(path.join(root, "Kept", "01.flac"), "")

layer(ScanPhasesLive, { timeout: "60 seconds" })("scan tidy", (it) => {
  it.effect(
    "tidy marks tracks whose files are gone missing (rows and ids kept), hides the album and artist left with nothing present, forgets the folder and its errors, and logs the deletions",
    () =>
      Effect.gen(function* () {
        yield* writeBatch(noIndex, false, [
          parsedFolder("Gone", [
            scanned("Gone/01.flac", { title: "One", artist: "Gone Artist", album: "Gone Album" }),
            scanned("Gone/02.flac", { title: "Two", artist: "Gone Artist", album: "Gone Album" }),
            failed("Gone/03.flac"),
          ]),
          parsedFolder("Kept", [scanned("Kept/01.flac", { title: "Stays", artist: "Kept Artist", album: "Kept" })]),
        ])
        const sql = yield* SqlClient.SqlClient
        const [gone] = yield* sql<{ album_id: string; artist_id: string }>`
          SELECT album_id, artist_id FROM tracks WHERE path = 'Gone/01.flac'`
        const goneTracks = (yield* sql<{ id: string }>`SELECT id FROM tracks WHERE directory = 'Gone'`).map(
          (row) => row.id,
        )
        // The "Gone" folder left the disk; "Kept" is as it was.
        const walked: WalkResult = {
          folders: new Map([
            ["Kept", { path: "Kept", files: [{ path: "Kept/01.flac", sizeBytes: 1_000, mtimeMs: 1 }] }],
          ]),
          sidecars: new Map(),
        }
        const planned = plan(walked, yield* knownNow, false)
        expect([...planned.removedPaths].sort()).toEqual(["Gone/01.flac", "Gone/02.flac"])

        expect(yield* tidy(planned, root)).toEqual({ removed: 2 })
        expect(yield* sql`SELECT 1 FROM tracks WHERE directory = 'Gone'`).toHaveLength(0)
        expect(yield* sql`SELECT 1 FROM albums WHERE id = ${gone!.album_id}`).toHaveLength(0)
        expect(yield* sql`SELECT 1 FROM artists WHERE id = ${gone!.artist_id}`).toHaveLength(0)
        const kept = yield* sql<{ id: string }>`
          SELECT id FROM indexed_tracks WHERE directory = 'Gone' AND missing_since IS NOT NULL ORDER BY id`
        expect(kept.map((row) => row.id)).toEqual([...goneTracks].sort())
        expect(
          yield* sql`SELECT 1 FROM indexed_albums WHERE id = ${gone!.album_id} AND missing_since IS NOT NULL`,
        ).toHaveLength(1)
        expect(
          yield* sql`SELECT 1 FROM indexed_artists WHERE id = ${gone!.artist_id} AND missing_since IS NOT NULL`,
        ).toHaveLength(1)
        const [counts] = yield* sql<{ track_count: number; duration_ms: string }>`
          SELECT track_count, duration_ms FROM indexed_albums WHERE id = ${gone!.album_id}`
        expect(counts).toEqual({ track_count: 0, duration_ms: "0" })
        expect(yield* sql`SELECT 1 FROM library_folders WHERE path = 'Gone'`).toHaveLength(0)
        expect(yield* sql`SELECT 1 FROM scan_errors WHERE path = 'Gone/03.flac'`).toHaveLength(0)
        expect(yield* sql`SELECT 1 FROM tracks WHERE path = 'Kept/01.flac'`).toHaveLength(1)
        const logged = yield* sql<{ entity: string; entity_id: string; operation: string }>`
          SELECT entity, entity_id, operation FROM library_changes
          WHERE entity_id = ANY(${[...goneTracks, gone!.album_id, gone!.artist_id]}) ORDER BY entity, entity_id`
        expect(logged).toEqual(
          [
            ...goneTracks.map((id) => ({ entity: "track", entity_id: id, operation: "delete" })),
            { entity: "album", entity_id: gone!.album_id, operation: "delete" },
            { entity: "artist", entity_id: gone!.artist_id, operation: "delete" },
          ].sort((a, b) => (a.entity + a.entity_id < b.entity + b.entity_id ? -1 : 1)),
        )
      }),
  )

  it.effect("tidy after a scan that found nothing changed removes nothing and logs nothing", () =>
    Effect.gen(function* () {
      const before = yield* lastSeq
      const known = yield* knownNow
      const walked: WalkResult = {
        folders: new Map([["Kept", { path: "Kept", files: [{ path: "Kept/01.flac", sizeBytes: 1_000, mtimeMs: 1 }] }]]),
        sidecars: new Map(),
      }
      const planned = plan(walked, known, false)
      expect(planned.dirty).toEqual([])
      expect(yield* tidy(planned, root)).toEqual({ removed: 0 })
      expect(yield* lastSeq).toBe(before)
    }),
  )
})
