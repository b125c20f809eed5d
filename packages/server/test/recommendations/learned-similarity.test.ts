import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { buildCatalog, type CoListenRow, LEARNED_SIMILARITY } from "@tonearm/recommend"
import { Effect, Layer } from "effect"
import { describe, it } from "vitest"
import { taggedFile } from "../../fixtures/synthetic.js"
import {
  coListenFingerprint,
  LEARNED_REFIT_MS,
  LEARNED_SMALL_ARTISTS,
  learnedSimilarityCache,
} from "../../src/recommendations/learnedSimilarityCache.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { arrangePlays, type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(200, 7)
/** Two artists whose genres nobody else has: by tags, similar to nobody, so only co-listening links them. */
const LONE = { seed: ["Lone Seed", "Gamelan"], stranger: ["Lone Stranger", "Throat Singing"] } as const
for (const [artist, genre] of Object.values(LONE))
  for (const no of [1, 2]) {
    const album = path.join(root, artist, "Alone")
    fs.mkdirSync(album, { recursive: true })
    const tags = { title: `Alone ${no}`, artist, albumArtist: artist, album: "Alone", track: { no }, genres: [genre] }
    fs.writeFileSync(path.join(album, `0${no}.mp3`), await taggedFile("mp3", tags))
  }

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("recommendations: learned artist similarity", (it) => {
  it.effect(
    "Discover suggestions: listeners who play two artists together make them learned neighbours (EASE + RP3beta), after a rebuild",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const tracks = yield* libraryTracks
        const idOf = (name: string) =>
          Effect.map(sql<{ id: string }>`SELECT id FROM artists WHERE name = ${name}`, (rows) => rows[0]!.id)
        const seed = yield* idOf(LONE.seed[0])
        const stranger = yield* idOf(LONE.stranger[0])
        const tracksOf = (artist: string): ReadonlyArray<LibraryTrackRow> =>
          tracks.filter((track) => track.artist_id === artist)
        expect(tracksOf(seed)).toHaveLength(2)

        // Gina plays only the lone seed: nobody co-listens, no tag is shared, nothing to suggest from it.
        const gina = yield* aUser("gina")
        yield* arrangePlays(gina.user.id, tracksOf(seed), { times: 4 })
        yield* gina.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
        const before = yield* gina.client.discover.suggestions()
        expect(before.map((suggestion) => suggestion.artist_id)).not.toContain(stranger)

        // Two listeners play the seed and the stranger together: the learned similarity links them.
        for (const name of ["erin", "frank"]) {
          const listener = yield* aUser(name)
          yield* arrangePlays(listener.user.id, [...tracksOf(seed), ...tracksOf(stranger)], { times: 4 })
        }
        yield* gina.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
        const after = yield* gina.client.discover.suggestions()
        const found = after.find((suggestion) => suggestion.artist_id === stranger)
        expect(found).toBeDefined()
        expect(found).toMatchObject({ in_library: true, name: LONE.stranger[0] })
        expect(found!.score).toBeGreaterThan(0)
        // And the artist page's similar list says the same.
        const similar = yield* gina.client.radio.similarArtists({ path: { id: ArtistId.make(seed) } })
        expect(similar[0]?.id).toBe(stranger)
      }),
  )
})

/** A catalog of `artists` artists, one track each, and listeners who each play `perListener` of them. */
const world = (artists: number, listeners: number, perListener: number) => {
  const id = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`
  const catalog = buildCatalog(
    Array.from({ length: artists }, (_, a) => ({
      id: TrackId.make(id(2, a)),
      artist_id: ArtistId.make(id(1, a)),
      album_id: AlbumId.make(id(3, a)),
      duration_ms: 200_000,
      genre: null,
      year: null,
      added_at_ms: 0,
    })),
  )
  const rows: Array<CoListenRow> = []
  for (let u = 0; u < listeners; u++)
    for (let k = 0; k < perListener; k++)
      rows.push({ user_id: `u${u}`, artist_id: ArtistId.make(id(1, (u * 7 + k) % artists)), plays: 1 + k })
  return { catalog, rows }
}

describe("learned similarity in the engine's process", () => {
  it("the fingerprint changes with any row and not with their order", () => {
    const { rows } = world(20, 5, 4)
    expect(coListenFingerprint([...rows].reverse())).toBe(coListenFingerprint(rows))
    expect(coListenFingerprint([...rows.slice(1), { ...rows[0]!, plays: rows[0]!.plays + 1 }])).not.toBe(
      coListenFingerprint(rows),
    )
  })

  it("a small server refits as soon as its plays change; a large one at most every LEARNED_REFIT_MS", () => {
    const small = world(40, 10, 6)
    const cache = learnedSimilarityCache()
    const first = cache.modelFor(small.catalog, small.rows, 0)
    expect(cache.modelFor(small.catalog, small.rows, 1)).toBe(first)
    const more = [...small.rows, { ...small.rows[0]!, user_id: "late" }]
    expect(cache.modelFor(small.catalog, more, 2)).not.toBe(first)

    const large = world(LEARNED_SMALL_ARTISTS + 100, 120, 12)
    const model = cache.modelFor(large.catalog, large.rows, 0)
    expect(model.ease.kept.length).toBeGreaterThanOrEqual(LEARNED_SMALL_ARTISTS)
    expect(model.ease.kept.length).toBeLessThanOrEqual(LEARNED_SIMILARITY.ease.maxItems)
    const changed = [...large.rows, { ...large.rows[0]!, user_id: "late" }]
    expect(cache.modelFor(large.catalog, changed, LEARNED_REFIT_MS - 1)).toBe(model)
    expect(cache.modelFor(large.catalog, changed, LEARNED_REFIT_MS)).not.toBe(model)
  })
})
