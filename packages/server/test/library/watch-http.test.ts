import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import type { TonearmClient } from "@tonearm/client-sdk"
import { Duration, Effect, Layer, Option, Schedule } from "effect"
import { ffmpeg, sineInput } from "../../fixtures/ffmpeg.js"
import { libraryWatcher, type WatchSettings } from "../../src/library/LibraryWatcher.js"
import { logIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

/** Tagged one-second MP3s made once, outside any library; tests copy them in as a user would. */
const staging = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-watch-staging-"))
const made = async (name: string, album: string, title: string) => {
  const file = path.join(staging, name)
  await ffmpeg([
    ...sineInput(1, 330),
    "-c:a",
    "libmp3lame",
    ...["-metadata", `title=${title}`, "-metadata", "artist=Watcher", "-metadata", `album=${album}`],
    file,
  ])
  return file
}
const [first, second, secondRetagged] = await Promise.all([
  made("first.mp3", "First Album", "Opening"),
  made("second.mp3", "Second Album", "Arrival"),
  made("second-retagged.mp3", "Second Album Deluxe", "Arrival (Remastered)"),
])

const library = (name: string) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `tonearm-watch-${name}-`))
  fs.mkdirSync(path.join(root, "Watcher", "First Album"), { recursive: true })
  fs.copyFileSync(first, path.join(root, "Watcher", "First Album", "01 Opening.mp3"))
  return root
}

const albumTitles = (client: TonearmClient) =>
  Effect.map(client.library.albums({ urlParams: {} }), (page) => page.items.map((album) => album.title).sort())

/** Polls the album list until it is `expected` or `within` has passed; answers the last list seen. */
const eventually = (client: TonearmClient, expected: ReadonlyArray<string>, within = Duration.seconds(10)) =>
  Effect.gen(function* () {
    const deadline = Date.now() + Duration.toMillis(within)
    let titles = yield* albumTitles(client)
    while (JSON.stringify(titles) !== JSON.stringify(expected) && Date.now() < deadline) {
      yield* Effect.sleep("100 millis")
      titles = yield* albumTitles(client)
    }
    return titles
  })

const watched = (root: string, settings: WatchSettings) =>
  libraryWatcher(settings).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root })))

const enabled = library("on")
layer(watched(enabled, { watch: true, debounce: Duration.millis(300), interval: Option.none() }), {
  excludeTestServices: true,
  timeout: "60 seconds",
})("library watcher over HTTP", (it) => {
  it.effect("copying, replacing and deleting files in the library shows in the API without a scan call", () =>
    Effect.gen(function* () {
      yield* scanNow()
      const admin = yield* signUpFirstAdmin("admin")
      expect(yield* albumTitles(admin.client)).toEqual(["First Album"])

      const album = path.join(enabled, "Watcher", "Second Album")
      fs.mkdirSync(album)
      fs.copyFileSync(second, path.join(album, "01 Arrival.mp3"))
      const started = Date.now()
      expect(yield* eventually(admin.client, ["First Album", "Second Album"])).toEqual(["First Album", "Second Album"])
      const seconds = (Date.now() - started) / 1000
      expect(seconds).toBeLessThan(5)

      fs.copyFileSync(secondRetagged, path.join(album, "01 Arrival.mp3"))
      expect(yield* eventually(admin.client, ["First Album", "Second Album Deluxe"])).toEqual([
        "First Album",
        "Second Album Deluxe",
      ])
      const search = yield* admin.client.library.search({ urlParams: { q: "arrival" } })
      expect(search.tracks.map((track) => track.title)).toEqual(["Arrival (Remastered)"])

      fs.rmSync(album, { recursive: true })
      expect(yield* eventually(admin.client, ["First Album"])).toEqual(["First Album"])
      // The watcher scans like anyone: the scan status shows them, and goes back to idle once the changes settle
      // (a loaded machine may still be finishing the watcher's last scan when the albums already show it).
      const status = yield* admin.client.scan.status().pipe(
        Effect.filterOrFail((now) => now.state === "idle"),
        Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 150 }),
        Effect.orElse(() => admin.client.scan.status()),
      )
      expect(status.state).toBe("idle")
    }).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(enabled, { recursive: true, force: true })))),
  )
})

const disabled = library("off")
layer(watched(disabled, { watch: false, debounce: Duration.millis(300), interval: Option.none() }), {
  excludeTestServices: true,
  timeout: "60 seconds",
})("library watcher turned off", (it) => {
  it.effect("TONEARM_WATCH=false: a file copied into the library stays out of the index until a scan", () =>
    Effect.gen(function* () {
      yield* scanNow()
      yield* signUpFirstAdmin("admin")
      const admin = yield* logIn("admin")
      const album = path.join(disabled, "Watcher", "Second Album")
      fs.mkdirSync(album)
      fs.copyFileSync(second, path.join(album, "01 Arrival.mp3"))
      yield* Effect.sleep("1500 millis")
      expect(yield* albumTitles(admin.client)).toEqual(["First Album"])
      yield* scanNow()
      expect(yield* albumTitles(admin.client)).toEqual(["First Album", "Second Album"])
    }).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          fs.rmSync(disabled, { recursive: true, force: true })
          fs.rmSync(staging, { recursive: true, force: true })
        }),
      ),
    ),
  )
})
