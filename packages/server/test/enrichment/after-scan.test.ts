import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"
import { drained, eventually, fakeMusicBrainz, fastEnrichment, stateCounts } from "./support.js"

const root = await syntheticLibrary(120, 3)
// One artist's folder is held back from the first scan and added before the second.
const heldBack = fs.readdirSync(root).filter((name) => fs.statSync(path.join(root, name)).isDirectory())[0]!
const aside = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-aside-"))
fs.renameSync(path.join(root, heldBack), path.join(aside, heldBack))

const musicbrainz = await startFakeServer(fakeMusicBrainz)
afterAll(() => musicbrainz.stop())

const settings = {
  ...fastEnrichment({
    musicbrainz: musicbrainz.url,
    lastfm: "http://127.0.0.1:9",
    listenbrainz: "http://127.0.0.1:9",
    coverartarchive: "http://127.0.0.1:9",
  }),
  // No polling to speak of: only the scan's own signal can start the run in time.
  pollMs: 600_000,
}

layer(TestServerLive({ libraryDir: root, enrichment: settings }), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("enrichment after a scan", (it) => {
  it.effect("a finished scan starts the enrichment of the albums and artists it added at once", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      yield* scanNow()
      yield* admin.client.tagSources.update({ path: { id: "musicbrainz" }, payload: { enabled: true } })
      const first = yield* drained("musicbrainz")
      fs.renameSync(path.join(aside, heldBack), path.join(root, heldBack))
      yield* scanNow()
      const sql = yield* SqlClient.SqlClient
      const [entities] = yield* sql<{ n: number }>`
          SELECT (SELECT count(*) FROM albums) + (SELECT count(*) FROM artists) AS n`
      expect(Number(entities!.n)).toBeGreaterThan(first.settled ?? 0)
      yield* eventually(
        Effect.map(stateCounts("musicbrainz"), (counts) => (counts.settled ?? 0) === Number(entities!.n)),
        "the new entities enriched",
        10_000,
      )
    }),
  )
})
