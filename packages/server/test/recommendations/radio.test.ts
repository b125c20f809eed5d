import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { arrangePlays, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(600, 41)

const GENRE = "Jazz"
const SIZE = 12
const SIZE_MAX = 15
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const server = TestServerLive({ libraryDir: root, radio: { size: SIZE, sizeMax: SIZE_MAX, recentlyPlayedHours: 24 } })

/** A fresh listener and the library's tracks (read-only). */
const aListener = (name: string) => Effect.all({ listener: aUser(name), tracks: libraryTracks })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(server)), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("recommendations: radio", (it) => {
  it.effect("a track seed opens its own radio; radio_id is a fresh UUID each time", () =>
    Effect.gen(function* () {
      const { listener: alice, tracks } = yield* aListener("alice")
      const seed = tracks.find((track) => track.genres.includes(GENRE))!
      const radio = yield* alice.client.radio.start({ payload: { seed: { kind: "track", id: seed.id } } })
      expect(radio.radio_id).toMatch(UUID)
      expect(radio.tracks[0]!.id).toBe(seed.id)
      expect(radio.tracks.length).toBeGreaterThan(1)
      expect(new Set(radio.tracks.map((track) => track.id)).size).toBe(radio.tracks.length)
      const again = yield* alice.client.radio.start({ payload: { seed: { kind: "track", id: seed.id } } })
      expect(again.radio_id).not.toBe(radio.radio_id)
    }),
  )

  it.effect("an artist seed, an album seed and a genre seed each give a radio close to the seed", () =>
    Effect.gen(function* () {
      const { listener: alice, tracks } = yield* aListener("alice")
      const seed = tracks.find((track) => track.genres.length === 1 && track.genres[0] === GENRE)!
      const byArtist = yield* alice.client.radio.start({ payload: { seed: { kind: "artist", id: seed.artist_id } } })
      expect(byArtist.tracks.length).toBeGreaterThan(0)
      expect(byArtist.tracks.some((track) => track.artist_id === seed.artist_id)).toBe(true)

      const byAlbum = yield* alice.client.radio.start({ payload: { seed: { kind: "album", id: seed.album_id } } })
      expect(byAlbum.tracks.length).toBeGreaterThan(0)

      const byGenre = yield* alice.client.radio.start({ payload: { seed: { kind: "genre", value: GENRE } } })
      expect(byGenre.tracks.length).toBe(SIZE)
      const genres = new Map(tracks.map((track) => [track.id as string, track.genres]))
      const matching = byGenre.tracks.filter((track) => genres.get(track.id)?.includes(GENRE))
      expect(matching.length / byGenre.tracks.length).toBeGreaterThan(0.5)
    }),
  )

  it.effect(
    "size defaults to TONEARM_RADIO_SIZE; a size above TONEARM_RADIO_SIZE_MAX is clamped to it, not refused",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const seed = { kind: "genre", value: GENRE } as const
        expect((yield* alice.client.radio.start({ payload: { seed } })).tracks).toHaveLength(SIZE)
        expect((yield* alice.client.radio.start({ payload: { seed, size: 5 } })).tracks).toHaveLength(5)
        expect((yield* alice.client.radio.start({ payload: { seed, size: 500 } })).tracks).toHaveLength(SIZE_MAX)
      }),
  )

  it.effect("an unknown seed id, or a genre no track has, is 404 not_found", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const missing = "00000000-0000-4000-8000-000000000000"
      for (const seed of [
        { kind: "track", id: TrackId.make(missing) },
        { kind: "artist", id: ArtistId.make(missing) },
        { kind: "album", id: AlbumId.make(missing) },
        { kind: "genre", value: "No Such Genre At All" },
      ]) {
        const response = yield* raw("POST", "/api/radio", { token: alice.token, body: JSON.stringify({ seed }) })
        expect(response.status, JSON.stringify(seed)).toBe(404)
        expect(response.json).toMatchObject({ error: { code: "not_found" } })
      }
    }),
  )

  it.effect("a malformed seed id, an unknown seed kind or a size below 1 is 400 invalid_request", () =>
    Effect.gen(function* () {
      const { listener: alice, tracks } = yield* aListener("alice")
      const track = tracks[0]!.id
      for (const body of [
        { seed: { kind: "track", id: "not-a-uuid" } },
        { seed: { kind: "playlist", id: track } },
        { seed: { kind: "genre", value: "  " } },
        { seed: { kind: "track", id: track }, size: 0 },
        { seed: { kind: "track", id: track }, size: 2.5 },
        {},
      ]) {
        const response = yield* raw("POST", "/api/radio", { token: alice.token, body: JSON.stringify(body) })
        expect(response.status, JSON.stringify(body)).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
      }
    }),
  )

  it.effect("plays from a radio report source radio:<radio_id>", () =>
    Effect.gen(function* () {
      const bob = yield* aUser("bob")
      const radio = yield* bob.client.radio.start({ payload: { seed: { kind: "genre", value: GENRE } } })
      const source = `radio:${radio.radio_id}`
      yield* bob.client.plays.report({
        payload: { type: "play_started", track_id: radio.tracks[0]!.id, client_id: "test", source },
      })
      const history = yield* bob.client.plays.history({ urlParams: {} })
      expect(history.items[0]!.source).toBe(source)
      expect(history.items[0]!.pick_kind).toBeNull()
    }),
  )

  it.effect("radio reads the caller's own stored profile: it never builds, writes or borrows another user's", () =>
    Effect.gen(function* () {
      const { listener: alice, tracks } = yield* aListener("alice")
      const sql = yield* SqlClient.SqlClient
      const jazz = tracks.filter((track) => track.genres.includes(GENRE))
      yield* arrangePlays(alice.user.id, jazz.slice(0, 30), { times: 3, daysAgo: 2 })
      yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      const before = yield* sql`SELECT user_id, dimension, key, weight FROM taste_profile_weights ORDER BY 1, 2, 3`
      const carol = yield* aUser("carol")
      const radio = yield* carol.client.radio.start({ payload: { seed: { kind: "genre", value: GENRE } } })
      expect(radio.tracks.length).toBeGreaterThan(0)
      yield* alice.client.radio.start({ payload: { seed: { kind: "genre", value: GENRE } } })
      expect(yield* sql`SELECT user_id, dimension, key, weight FROM taste_profile_weights ORDER BY 1, 2, 3`).toEqual(
        before,
      )
      expect(yield* sql`SELECT 1 FROM taste_profiles WHERE user_id = ${carol.user.id}`).toEqual([])
    }),
  )

  it.effect("the radio's order follows the device class of the caller's latest play (rule 4)", () =>
    Effect.gen(function* () {
      // Dana listens to one set of artists in the car and another on her phone; her latest play decides the cell.
      const { listener: dana, tracks } = yield* aListener("dana")
      const jazz = tracks.filter((track) => track.genres.length === 1 && track.genres[0] === GENRE)
      const artists = [...new Set(jazz.map((track) => track.artist_id))]
      expect(artists.length).toBeGreaterThan(3)
      const half = Math.floor(artists.length / 2)
      const carArtists = new Set<string>(artists.slice(0, half))
      const inCar = jazz.filter((track) => carArtists.has(track.artist_id))
      const onPhone = jazz.filter((track) => !carArtists.has(track.artist_id))
      yield* arrangePlays(dana.user.id, inCar.slice(0, 15), { times: 4, daysAgo: 7, device: "car" })
      yield* arrangePlays(dana.user.id, onPhone.slice(0, 15), { times: 4, daysAgo: 7, device: "mobile" })
      // A radio draws `size` tracks from a ranking of at most 3 per artist. The Jazz radio's 7 artists rank 15
      // tracks, so a radio of 15 would hold all of them whatever their order ("X feat. Y" rows, once artists of
      // their own, made that ranking longer). A radio of 8 is a choice among them, the better ranked more often;
      // 20 radios per device keep the two shares apart.
      const DRAWN = 8
      const carShare = (device: string) =>
        Effect.gen(function* () {
          yield* arrangePlays(dana.user.id, [tracks.find((track) => !track.genres.includes(GENRE))!], {
            daysAgo: 0,
            device,
          })
          // Car artists against phone artists among the radios' tracks (artists she never played count for neither).
          let car = 0
          let phone = 0
          const drawn = new Set<string>()
          for (let i = 0; i < 20; i++) {
            const radio = yield* dana.client.radio.start({
              payload: { seed: { kind: "genre", value: GENRE }, size: DRAWN },
            })
            for (const track of radio.tracks) {
              drawn.add(track.id)
              if (carArtists.has(track.artist_id)) car++
              else if (artists.includes(track.artist_id)) phone++
            }
          }
          // Each radio is a choice from a longer ranking, so the ranking's order can show in what is drawn.
          expect(drawn.size).toBeGreaterThan(DRAWN)
          return car / Math.max(1, car + phone)
        })
      const inTheCar = yield* carShare("car")
      const onThePhone = yield* carShare("mobile")
      expect(inTheCar).toBeGreaterThan(onThePhone)
    }),
  )
})
