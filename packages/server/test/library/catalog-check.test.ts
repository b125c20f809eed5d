/**
 * The catalog check of issue 31 ("Done means") on a library the project's own synthetic generator writes with
 * credits (feat. guests on untagged albums, multi-valued ARTIST, explicit ARTISTS, `&`/`x`/`vs.` names, untagged
 * albums of many artists): the same comparison `pnpm bench:catalog` runs on gen-library's 20,000 tracks.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  catalogCheckPasses,
  catalogCheckReport,
  checkCatalog,
  expectedAlbumArtist,
  type GroundTruthSummary,
  type GroundTruthTrack,
  type ScannedTrack,
  splitCredits,
} from "../../fixtures/catalogCheck.js"
import { generateSyntheticLibrary } from "../../fixtures/synthetic.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-catalog-check-"))
await generateSyntheticLibrary({ out: root, tracks: 600, seed: 31, credits: true })
const manifest = fs
  .readFileSync(path.join(root, ".manifest.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line) as GroundTruthTrack)
const summary = JSON.parse(fs.readFileSync(path.join(root, ".manifest-summary.json"), "utf8")) as GroundTruthSummary

describe("the catalog check's ground truth", () => {
  it("splits on the contract's separators only: feat. guests are featured; &, x, vs. and AC/DC stay one name", () => {
    expect(splitCredits(["Alice feat. Bob"])).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
    ])
    expect(splitCredits(["Alice FT. Bob; Carol"])).toEqual([
      { name: "Alice", role: "main" },
      { name: "Bob", role: "featured" },
      { name: "Carol", role: "featured" },
    ])
    expect(splitCredits(["Alice / Bob", "Carol"]).map((credit) => credit.role)).toEqual(["main", "main", "main"])
    for (const name of ["Alice & Bob", "Alice x Bob", "Alice vs. Bob", "AC/DC"]) {
      expect(splitCredits([name])).toEqual([{ name, role: "main" }])
    }
  })

  it("derives the album artist by the contract's rule", () => {
    const track = (artists: ReadonlyArray<string>, albumartist: string | null = null): GroundTruthTrack => ({
      path: artists.join(),
      album_id: 1,
      albumartist,
      artists_expected: artists,
    })
    expect(expectedAlbumArtist([track(["A"]), track(["A feat. B"]), track(["C"]), track(["D"])])).toBe("A")
    expect(expectedAlbumArtist([track(["A"]), track(["A"]), track(["C"]), track(["D"]), track(["E"])])).toBe(
      "Various Artists",
    )
    expect(expectedAlbumArtist([track(["A"], "VA"), track(["A"], "VA")])).toBe("Various Artists")
    expect(expectedAlbumArtist([track(["A"], "Zed"), track(["B"], "Zed")])).toBe("Zed")
  })
})

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "catalog check",
  (it) => {
    it.effect("a generated library scans to its ground truth: album artists, credits, albums and Various Artists", () =>
      Effect.gen(function* () {
        const { client } = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        // Paths are not on the wire: the database says which track id is which file.
        const sql = yield* SqlClient.SqlClient
        const paths = new Map(
          (yield* sql<{ id: string; path: string }>`SELECT id, path FROM tracks`).map((row) => [row.id, row.path]),
        )
        const albums = yield* client.library.albums({ urlParams: { limit: 500 } })
        expect(albums.total).toBe(albums.items.length)
        const scanned: Array<ScannedTrack> = []
        for (const ref of albums.items) {
          const detail = yield* client.library.album({ path: { id: ref.id } })
          for (const track of detail.tracks) {
            scanned.push({
              path: paths.get(track.id)!,
              albumId: detail.id,
              albumArtist: detail.artist_name,
              credits: track.artists.map((artist) => ({ name: artist.name, role: artist.role })),
            })
          }
        }
        const check = checkCatalog({
          manifest,
          summary,
          scanned,
          albums: {
            albums: albums.total,
            various: albums.items.filter((album) => album.artist_name === "Various Artists").length,
          },
        })
        // The library holds every case the check is for.
        expect(
          manifest.some(
            (line) => line.albumartist === null && /feat\.|ft\.|featuring/i.test(line.artists_expected.join()),
          ),
        ).toBe(true)
        expect(manifest.some((line) => line.artists_expected.length > 1)).toBe(true)
        expect(summary.compilation_albums).toBeGreaterThan(1)
        expect({ report: catalogCheckReport(check), pass: catalogCheckPasses(check) }).toMatchObject({ pass: true })
        expect([check.albumArtistOk, check.creditsOk, check.merged, check.split]).toEqual([
          check.tracks,
          check.tracks,
          0,
          0,
        ])
      }),
    )
  },
)
