import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { signUpFirstAdmin } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root, manifest } = await fixtureLibrary()
const audio = manifest.files.flatMap((file) => (file.kind === "audio" ? [file] : []))
const moved = audio[0]!
const aside = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-aside-"))

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "album pages and home's recently added follow the library",
  (it) => {
    it.effect(
      "a scan that removes or restores a track changes the next album page and home, though both were read",
      () =>
        Effect.gen(function* () {
          const { client } = yield* signUpFirstAdmin("admin")
          yield* scanNow()
          const tracksOf = Effect.map(client.library.albums({ urlParams: { limit: 200, sort: "title" } }), (page) => ({
            total: page.total,
            tracks: page.items.reduce((sum, album) => sum + album.track_count, 0),
          }))
          // The fixture's albums all fit in home's recently added row (20).
          const recentTracks = Effect.map(client.home.sections(), (home) =>
            home.recently_added.reduce((sum, album) => sum + album.track_count, 0),
          )
          const before = yield* tracksOf
          expect(yield* recentTracks).toBe(audio.length)
          expect(before.tracks).toBe(audio.length)
          expect(yield* tracksOf).toEqual(before)

          fs.renameSync(path.join(root, moved.path), path.join(aside, "moved"))
          yield* scanNow()
          expect((yield* tracksOf).tracks).toBe(before.tracks - 1)
          expect(yield* recentTracks).toBe(audio.length - 1)

          fs.renameSync(path.join(aside, "moved"), path.join(root, moved.path))
          yield* scanNow()
          expect(yield* tracksOf).toEqual(before)
          expect(yield* recentTracks).toBe(audio.length)
        }),
    )
  },
)
