import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ffmpeg, sineInput } from "../../fixtures/ffmpeg.js"
import { scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Formats whose header does not carry the length: music-metadata finds it only when asked to read the
 * stream through. Thirty seconds is long enough that an Ogg parse not asked for the duration stops early.
 */
const SECONDS = 30
const tags = (title: string) => [
  "-metadata",
  `title=${title}`,
  "-metadata",
  "artist=Lengths",
  "-metadata",
  "album=Long",
]
const files: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<string> }> = [
  { name: "01 Vorbis.ogg", args: [...sineInput(SECONDS, 440), "-c:a", "libvorbis", ...tags("Vorbis")] },
  { name: "02 Opus.opus", args: [...sineInput(SECONDS, 440, 48000), "-c:a", "libopus", ...tags("Opus")] },
  { name: "03 Adts.aac", args: [...sineInput(SECONDS, 440), "-c:a", "aac", "-f", "adts"] },
  // CBR MP3 without a Xing frame: the length is estimated from the bitrate.
  {
    name: "04 NoXing.mp3",
    args: [...sineInput(SECONDS, 440), "-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0", ...tags("NoXing")],
  },
]

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-durations-"))
fs.mkdirSync(path.join(root, "Lengths"))
await Promise.all(files.map(({ name, args }) => ffmpeg([...args, path.join(root, "Lengths", name)])))

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "60 seconds" })("durations", (it) => {
  it.effect("Ogg Vorbis, Opus, ADTS AAC and Xing-less MP3 files are stored with their real length", () =>
    Effect.gen(function* () {
      const summary = yield* scanNow()
      expect(summary).toMatchObject({ added: files.length, errors: 0 })
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ path: string; duration_ms: number }>`SELECT path, duration_ms FROM tracks ORDER BY path`
      expect(rows.map((row) => row.path)).toEqual(files.map(({ name }) => `Lengths/${name}`))
      for (const row of rows) {
        expect(Math.abs(row.duration_ms - SECONDS * 1000), `${row.path}: ${row.duration_ms} ms`).toBeLessThanOrEqual(
          150,
        )
      }
    }).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))),
  )
})
