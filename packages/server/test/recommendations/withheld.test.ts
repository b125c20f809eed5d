import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SAMPLE } from "../../fixtures/wild.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { makeLibrary, scanNow, wildSamples } from "../support/library.js"
import { arrangePlays, libraryTracks } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

// Three tracks: too few for any discovery mix.
const wild = (await wildSamples()).root
const root = makeLibrary({
  "A/one.mp3": path.join(wild, SAMPLE.cutMp3),
  "A/two.mp3": path.join(wild, SAMPLE.mp3Cbr),
  "B/three.flac": path.join(wild, SAMPLE.flacPlain),
})

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "recommendations: minimum mix sizes",
  (it) => {
    it.effect("a mix below its minimum size is withheld: listed locked, with no tracks and a reason to show", () =>
      Effect.gen(function* () {
        const alice = yield* signUpFirstAdmin("alice")
        yield* scanNow()
        yield* arrangePlays(alice.user.id, (yield* libraryTracks).slice(0, 1), { times: 2 })
        const forYou = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
        expect(forYou.locked).toBe(true)
        expect(forYou.tracks).toEqual([])
        expect(forYou.locked_reason).toMatch(/15/)
        const rows = yield* alice.client.playlists.list()
        for (const kind of ["for_you", "discover", "new_for_you", "first_listens"]) {
          const row = rows.find((candidate) => candidate.system_variant === kind)!
          expect(row.locked).toBe(true)
          expect(row.track_count).toBe(0)
          expect(row.locked_reason?.length ?? 0).toBeGreaterThan(0)
        }
        // New for you and First listens unlock at 5 tracks, not 15.
        expect(rows.find((row) => row.system_variant === "new_for_you")!.locked_reason).toMatch(/\b5\b/)
        // Mixes with no minimum are never locked, and user playlists never are.
        for (const row of rows.filter(
          (row) => row.system_variant === "rediscover" || row.system_variant === "on_repeat",
        ))
          expect(row.locked).toBe(false)
        // The shuffle of a withheld singleton answers 200 with an empty list.
        const shuffled = yield* alice.client.systemPlaylists.shuffle({ path: { kind: "discover" } })
        expect(shuffled.tracks).toEqual([])
      }),
    )
  },
)
