import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient, type TonearmClient } from "@tonearm/client-sdk"
import { Effect } from "effect"
import { type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { arrangePlays, type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { secondReplica, TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(600, 31)
const GENRE = "Jazz"

/** The share of a few short Jazz radios (each drawn from the top 4 × size of its ranking)' tracks that the listener played just now. */
const recentShare = (client: TonearmClient, recent: ReadonlySet<string>) =>
  Effect.gen(function* () {
    let total = 0
    let recentlyPlayed = 0
    for (let i = 0; i < 8; i++) {
      const radio = yield* client.radio.start({ payload: { seed: { kind: "genre", value: GENRE }, size: 5 } })
      total += radio.tracks.length
      recentlyPlayed += radio.tracks.filter((track) => recent.has(track.id)).length
    }
    return recentlyPlayed / total
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "recommendations: tuning applies live",
  (it) => {
    it.effect("a tuning PATCH changes the next radio without a restart, on every replica", () =>
      Effect.gen(function* () {
        const alice: SignedIn = yield* signUpFirstAdmin("alice")
        yield* scanNow()
        const jazz = (yield* libraryTracks).filter((track: LibraryTrackRow) => track.genres.includes(GENRE))
        expect(jazz.length).toBeGreaterThan(40)
        // Played just now, many times: strong taste, and inside the recently-played horizon.
        const played = jazz.slice(0, 20)
        yield* arrangePlays(alice.user.id, played, { times: 4, daysAgo: 0 })
        yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
        const recent = new Set<string>(played.map((track) => track.id))

        // Radio on another replica of the same database; the tuning changes through this one.
        const otherUrl = yield* secondReplica()
        const other = yield* makeTonearmClient({ baseUrl: otherUrl, credentials: bearer(alice.token) }).pipe(
          Effect.provide(FetchHttpClient.layer),
        )
        yield* alice.client.tuning.patch({
          payload: { scope: "radio", changes: { recency_penalty_weight: 0, taste_weight: 5 } },
        })
        const unpenalised = yield* recentShare(other, recent)
        yield* alice.client.tuning.patch({ payload: { scope: "radio", changes: { recency_penalty_weight: 5 } } })
        const penalised = yield* recentShare(other, recent)
        expect(unpenalised).toBeGreaterThan(0.2)
        expect(penalised).toBeLessThan(unpenalised / 3)
      }).pipe(Effect.scoped),
    )
  },
)
