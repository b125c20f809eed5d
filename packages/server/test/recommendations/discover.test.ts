import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ArtistId, Mbid } from "@tonearm/core"
import { DateTime, Effect, Either, Layer } from "effect"
import { taggedFile } from "../../fixtures/synthetic.js"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import { arrangePlays, type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(900, 31)
/**
 * Two artists with a genre each that no other artist has, two tracks each: tag-wise similar to nobody (the
 * synthetic artists all share some genre, so each of them lists every other as similar).
 */
const LONE = { seed: ["Lone Seed", "Gamelan"], stranger: ["Lone Stranger", "Throat Singing"] } as const
for (const [artist, genre] of Object.values(LONE))
  for (const no of [1, 2]) {
    const album = path.join(root, artist, "Alone")
    fs.mkdirSync(album, { recursive: true })
    const tags = { title: `Alone ${no}`, artist, albumArtist: artist, album: "Alone", track: { no }, genres: [genre] }
    fs.writeFileSync(path.join(album, `0${no}.mp3`), await taggedFile("mp3", tags))
  }

const GENRE = "Jazz"
const DAY_MS = 86_400_000
const X = Mbid.make("0b0b0b0b-1111-4222-8333-444455556666")

const millisOf = (at: DateTime.Utc) => DateTime.toEpochMillis(at)
const DECK_KINDS = new Set(["taste_unheard", "dormant", "cross_user", "random"])

/** Each artist's suggestion key: its MusicBrainz id, else its artist id. */
const artistKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string; key: string }>`SELECT id, COALESCE(mbid, id::text) AS key FROM artists`
  return new Map(rows.map((row) => [row.id, row.key]))
})

/** A third of the library's Jazz-only tracks: what a Jazz listener has played. */
const jazzPlayed = Effect.map(libraryTracks, (tracks) => {
  const jazz = tracks.filter((track) => track.genres.length === 1 && track.genres[0] === GENRE)
  return { jazz, played: jazz.slice(0, Math.ceil(jazz.length / 3)) }
})

/** A fresh listener who played those Jazz tracks three times each, two days ago. */
const aJazzListener = (name: string) =>
  Effect.gen(function* () {
    const listener = yield* aUser(name)
    yield* arrangePlays(listener.user.id, (yield* jazzPlayed).played, { times: 3, daysAgo: 2 })
    return listener
  })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("recommendations: Discover", (it) => {
  it.effect(
    "snooze parks the candidate for that user only until now + days; without days the tunable discovery.snooze_days (90)",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const bob = yield* aUser("bob")
        // The default horizon is the shipped one.
        yield* (yield* Admin).client.tuning.reset({ payload: { scope: "discovery" } })
        const before = Date.now()
        const week = yield* alice.client.discover.snooze({ path: { mbid: X }, payload: { name: "Someone", days: 7 } })
        expect(week.candidate_mbid).toBe(X)
        expect(week.candidate_name).toBe("Someone")
        expect(Math.abs(millisOf(week.snoozed_until) - (before + 7 * DAY_MS))).toBeLessThan(60_000)
        const other = Mbid.make("0c0c0c0c-1111-4222-8333-444455556666")
        const byDefault = yield* alice.client.discover.snooze({ path: { mbid: other }, payload: { name: "Other" } })
        expect(Math.abs(millisOf(byDefault.snoozed_until) - (before + 90 * DAY_MS))).toBeLessThan(60_000)
        const listed = yield* alice.client.discover.snoozes()
        expect(listed.map((row) => row.candidate_mbid).sort()).toEqual([X, other].sort())
        expect(listed.find((row) => row.candidate_mbid === X)?.candidate_name).toBe("Someone")
        // Another user sees none of them.
        expect(yield* bob.client.discover.snoozes()).toEqual([])
        yield* alice.client.discover.unsnooze({ path: { mbid: other } })
      }),
  )

  it.effect("the default snooze horizon follows the tunable discovery.snooze_days", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const alice = yield* aUser("alice")
      yield* admin.client.tuning.patch({ payload: { scope: "discovery", changes: { snooze_days: 10 } } })
      const mbid = Mbid.make("0d0d0d0d-1111-4222-8333-444455556666")
      const before = Date.now()
      const snooze = yield* alice.client.discover.snooze({ path: { mbid }, payload: { name: "Tuned" } })
      expect(Math.abs(millisOf(snooze.snoozed_until) - (before + 10 * DAY_MS))).toBeLessThan(60_000)
      yield* admin.client.tuning.reset({ payload: { scope: "discovery" } })
      yield* alice.client.discover.unsnooze({ path: { mbid } })
    }),
  )

  it.effect("snoozing again moves the end (and keeps one row)", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const first = yield* alice.client.discover.snooze({ path: { mbid: X }, payload: { name: "Someone", days: 30 } })
      const again = yield* alice.client.discover.snooze({ path: { mbid: X }, payload: { name: "Renamed", days: 2 } })
      expect(millisOf(again.snoozed_until)).toBeLessThan(millisOf(first.snoozed_until))
      const rows = (yield* alice.client.discover.snoozes()).filter((row) => row.candidate_mbid === X)
      expect(rows).toHaveLength(1)
      expect(rows[0]!.candidate_name).toBe("Renamed")
      expect(millisOf(rows[0]!.snoozed_until)).toBe(millisOf(again.snoozed_until))
    }),
  )

  it.effect("DELETE snooze returns the candidate: 204, idempotent; another user's DELETE leaves the row", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      yield* alice.client.discover.snooze({ path: { mbid: X }, payload: { name: "Someone", days: 30 } })
      // Bob's DELETE of the same MBID is about Bob's snoozes only.
      const bobs = yield* raw("DELETE", `/api/discover/suggestions/${X}/snooze`, { token: bob.token })
      expect(bobs.status).toBe(204)
      expect((yield* alice.client.discover.snoozes()).map((row) => row.candidate_mbid)).toContain(X)
      yield* alice.client.discover.unsnooze({ path: { mbid: X } })
      const second = yield* raw("DELETE", `/api/discover/suggestions/${X}/snooze`, { token: alice.token })
      expect(second.status).toBe(204)
      expect(yield* alice.client.discover.snoozes()).toEqual([])
    }),
  )

  it.effect("a malformed MBID, an empty name or days out of [1, 3650] is 400 invalid_request and stores nothing", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      for (const [path, body] of [
        ["/api/discover/suggestions/not-an-mbid/snooze", { name: "x" }],
        ["/api/discover/suggestions/0B0B0B0B-1111-4222-8333-444455556666/snooze", { name: "x" }],
        [`/api/discover/suggestions/${X}/snooze`, { name: "  " }],
        [`/api/discover/suggestions/${X}/snooze`, { name: "x", days: 0 }],
        [`/api/discover/suggestions/${X}/snooze`, { name: "x", days: 1.5 }],
        [`/api/discover/suggestions/${X}/snooze`, { name: "x", days: 3651 }],
      ] as const) {
        const response = yield* raw("POST", path, { token: alice.token, body: JSON.stringify(body) })
        expect(response.status, path).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
      }
      const deleted = yield* raw("DELETE", "/api/discover/suggestions/nope/snooze", { token: alice.token })
      expect(deleted.status).toBe(400)
      expect(yield* alice.client.discover.snoozes()).toEqual([])
    }),
  )

  it.effect(
    "a listener with plays gets in-library suggestions with no provider configured: artists they never played, image_url omitted",
    () =>
      Effect.gen(function* () {
        const { jazz, played } = yield* jazzPlayed
        expect(jazz.length).toBeGreaterThan(20)
        const alice = yield* aJazzListener("alice")
        yield* aJazzListener("bob")
        const suggestions = yield* alice.client.discover.suggestions()
        expect(suggestions.length).toBeGreaterThan(0)
        const own = new Set<string>(played.map((track) => track.artist_id))
        const keys = yield* artistKeys
        for (const suggestion of suggestions) {
          expect(suggestion.in_library).toBe(true)
          expect(suggestion.artist_id).toBeDefined()
          expect(own.has(suggestion.artist_id!)).toBe(false)
          expect(suggestion.mbid).toBe(keys.get(suggestion.artist_id!))
          expect(suggestion).not.toHaveProperty("image_url")
          expect(suggestion.score).toBeGreaterThan(0)
        }
        expect(new Set(suggestions.map((suggestion) => suggestion.mbid)).size).toBe(suggestions.length)
        // The artists that share the listener's genre lead: rule 5 lifts candidates whose tags overlap the taste.
        expect(suggestions[0]!.tags).toContain(GENRE)
      }),
  )

  it.effect("snoozed candidates leave that user's suggestions only, and return when the snooze ends", () =>
    Effect.gen(function* () {
      const alice = yield* aJazzListener("alice")
      const bob = yield* aJazzListener("bob")
      const before = yield* alice.client.discover.suggestions()
      const target = before[0]!
      yield* alice.client.discover.snooze({
        path: { mbid: Mbid.make(target.mbid) },
        payload: { name: target.name },
      })
      const after = yield* alice.client.discover.suggestions()
      expect(after.map((suggestion) => suggestion.mbid)).not.toContain(target.mbid)
      expect((yield* bob.client.discover.suggestions()).map((suggestion) => suggestion.mbid)).toContain(target.mbid)
      // Its time is reached: it no longer counts, and the candidate is back in the pool.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE discover_snoozes SET snoozed_until = now() - interval '1 minute'
                   WHERE user_id = ${alice.user.id} AND candidate_mbid = ${target.mbid}`
      expect(yield* alice.client.discover.snoozes()).toEqual([])
      expect((yield* alice.client.discover.suggestions()).map((suggestion) => suggestion.mbid)).toContain(target.mbid)
      yield* alice.client.discover.unsnooze({ path: { mbid: Mbid.make(target.mbid) } })
    }),
  )

  it.effect(
    "Discover deck (rule 6): a user never rebuilt is rebuilt once; the deck is the discover snapshot with its pick kinds, starting with taste_unheard",
    () =>
      Effect.gen(function* () {
        const carol = yield* aUser("carol")
        const jazz = (yield* libraryTracks).filter((track) => track.genres.includes(GENRE))
        yield* arrangePlays(carol.user.id, jazz.slice(0, 40), { times: 2, daysAgo: 3 })
        const deck = yield* carol.client.discover.deck()
        expect(deck.tracks.length).toBeGreaterThan(0)
        for (const entry of deck.tracks) expect(DECK_KINDS.has(entry.pick_kind)).toBe(true)
        expect(deck.tracks[0]!.pick_kind).toBe("taste_unheard")
        const heard = new Set<string>(jazz.slice(0, 40).map((track) => track.id))
        expect(deck.tracks.some((entry) => heard.has(entry.track.id))).toBe(false)
        // The same rows, in the same order, as the stored discover system playlist.
        const row = (yield* carol.client.playlists.list()).find((playlist) => playlist.system_variant === "discover")
        expect(row).toBeDefined()
        const detail = yield* carol.client.playlists.get({ path: { id: row!.id } })
        expect(deck.tracks.map((entry) => [entry.pick_kind, entry.track.id])).toEqual(
          detail.tracks.map((entry) => [entry.pick_kind, entry.track.id]),
        )
        // Served from the snapshot: a second read is the same deck.
        const again = yield* carol.client.discover.deck()
        expect(again.tracks.map((entry) => entry.track.id)).toEqual(deck.tracks.map((entry) => entry.track.id))
      }),
  )

  it.effect("an empty taste profile gives an empty taste bucket: no taste_unheard picks in the deck", () =>
    Effect.gen(function* () {
      const dave = yield* aUser("dave")
      const deck = yield* dave.client.discover.deck()
      expect(deck.tracks.length).toBeGreaterThan(0)
      expect(deck.tracks.some((entry) => entry.pick_kind === "taste_unheard")).toBe(false)
    }),
  )

  it.effect("a snoozed artist leaves the Discover deck at once and after the next rebuild", () =>
    Effect.gen(function* () {
      const alice = yield* aJazzListener("alice")
      yield* alice.client.systemPlaylists.refresh({ path: { kind: "discover" } })
      const deck = yield* alice.client.discover.deck()
      const keys = yield* artistKeys
      const artist = deck.tracks[0]!.track.artist_id
      const key = keys.get(artist)!
      yield* alice.client.discover.snooze({ path: { mbid: Mbid.make(key) }, payload: { name: "Deck artist" } })
      const after = yield* alice.client.discover.deck()
      expect(after.tracks.some((entry) => entry.track.artist_id === artist)).toBe(false)
      yield* alice.client.systemPlaylists.refresh({ path: { kind: "discover" } })
      const rebuilt = yield* alice.client.discover.deck()
      expect(rebuilt.tracks.length).toBeGreaterThan(0)
      expect(rebuilt.tracks.some((entry) => keys.get(entry.track.artist_id) === key)).toBe(false)
      // Bob's deck is not affected by Alice's snooze.
      yield* alice.client.discover.unsnooze({ path: { mbid: Mbid.make(key) } })
    }),
  )

  it.effect(
    "GET /api/artists/{id}/similar: in-library artists ranked by score, each once, the seed left out; co-listened artists count",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const tracks = yield* libraryTracks
        const byArtist = new Map<string, Array<LibraryTrackRow>>()
        for (const track of tracks) byArtist.set(track.artist_id, [...(byArtist.get(track.artist_id) ?? []), track])
        const jazzArtist = tracks.find((track) => track.genres.length === 1 && track.genres[0] === GENRE)!.artist_id
        const similar = yield* alice.client.radio.similarArtists({ path: { id: jazzArtist } })
        expect(similar.length).toBeGreaterThan(0)
        expect(similar.map((artist) => artist.id)).not.toContain(jazzArtist)
        expect(new Set(similar.map((artist) => artist.id)).size).toBe(similar.length)
        const scores = similar.map((artist) => artist.score)
        expect([...scores].sort((a, b) => b - a)).toEqual(scores)
        expect(similar[0]).toHaveProperty("album_count")
        expect(similar[0]).toHaveProperty("cover_url")

        // Two listeners who both play a seed and an artist not similar to it (no tag in common, never
        // co-listened) make them similar: the two lone artists, whose genres nobody else has.
        const sql = yield* SqlClient.SqlClient
        const idOf = (name: string) =>
          Effect.map(sql<{ id: string }>`SELECT id FROM artists WHERE name = ${name}`, (rows) => rows[0]!.id)
        const seed = yield* idOf(LONE.seed[0])
        const unrelated = yield* idOf(LONE.stranger[0])
        expect(byArtist.get(seed)).toHaveLength(2)
        expect(byArtist.get(unrelated)).toHaveLength(2)
        const listed = yield* alice.client.radio.similarArtists({ path: { id: ArtistId.make(seed) } })
        expect(listed.map((artist) => artist.id)).not.toContain(unrelated)
        const erin = yield* aUser("erin")
        const frank = yield* aUser("frank")
        for (const listener of [erin, frank]) {
          yield* arrangePlays(listener.user.id, byArtist.get(seed)!, { times: 4 })
          yield* arrangePlays(listener.user.id, byArtist.get(unrelated)!, { times: 4 })
        }
        const now = yield* alice.client.radio.similarArtists({ path: { id: ArtistId.make(seed) } })
        expect(now.map((artist) => artist.id)).toContain(unrelated)
      }),
  )

  it.effect("GET /api/artists/{id}/similar: an unknown artist is 404 not_found, a malformed id 400", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const missing = yield* Effect.either(
        alice.client.radio.similarArtists({ path: { id: ArtistId.make("00000000-0000-4000-8000-000000000000") } }),
      )
      expect(Either.isLeft(missing)).toBe(true)
      const response = yield* raw("GET", "/api/artists/00000000-0000-4000-8000-000000000000/similar", {
        token: alice.token,
      })
      expect(response.status).toBe(404)
      expect(response.json).toMatchObject({ error: { code: "not_found" } })
      const malformed = yield* raw("GET", "/api/artists/nope/similar", { token: alice.token })
      expect(malformed.status).toBe(400)
    }),
  )
})
