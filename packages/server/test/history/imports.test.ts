import { expect, layer } from "@effect/vitest"
import type { ImportStatus } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"
import { finished, lbListen, libraryTracks, playsOf, startImport } from "./importSupport.js"

const { root } = await fixtureLibrary()

const T0 = 1_600_000_000

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("history imports", (it) => {
  it.effect(
    "a ListenBrainz export becomes plays: counts, times, source import:listenbrainz_export, client_id import",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const tracks = (yield* libraryTracks).slice(0, 5)
        const listens = [
          ...tracks.map((track, i) => lbListen(track.artist, track.title, T0 + i * 600, track.album)),
          lbListen("Nobody In This Library", "No Such Song", T0 + 10_000),
          { listened_at: T0 + 11_000, track_metadata: { artist_name: "Someone", track_name: "" } },
        ]
        const id = yield* startImport(alice, JSON.stringify(listens), "listenbrainz_export")
        const status: ImportStatus = yield* finished(alice, id)
        expect(status).toMatchObject({
          id,
          source: "listenbrainz_export",
          state: "done",
          total: 7,
          matched: 5,
          unmatched: 2,
          duplicates: 0,
          message: null,
        })
        expect(status.started_at).not.toBeNull()
        expect(status.finished_at).not.toBeNull()
        const plays = yield* playsOf(alice.user.id)
        expect(plays.map((play) => play.track_id)).toEqual(tracks.map((track) => track.id))
        for (const [i, play] of plays.entries()) {
          expect(play.started_at.getTime()).toBe((T0 + i * 600) * 1000)
          expect(play).toMatchObject({
            source: "import:listenbrainz_export",
            client_id: "import",
            pick_kind: null,
            device_class: null,
            skipped: false,
            duration_played_ms: tracks[i]!.duration_ms,
          })
          expect(play.ended_at!.getTime()).toBe(play.started_at.getTime() + tracks[i]!.duration_ms)
        }
        const unmatched = yield* alice.client.imports.unmatched({ path: { id: status.id }, urlParams: {} })
        expect(unmatched.items.map((item) => [item.artist, item.title, item.reason])).toEqual([
          ["Nobody In This Library", "No Such Song", "no_match"],
          ["Someone", "", "incomplete"],
        ])
        expect(unmatched.cursor).toBeNull()
      }),
  )
})
