import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { checkLibraryScan } from "../../fixtures/libraryCheck.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { wildLibrary } from "../support/library.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

// Files as taggers and encoders in the wild leave them (fixtures/wild.ts); `pnpm check:real-audio <dir>` runs the
// same check over a folder of real-world files.
const { root, manifest } = await wildLibrary()

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "scanning files from the wild",
  (it) => {
    it.effect(
      "a scan over odd and broken files completes, indexes what parses, records the rest, and serves every track",
      () =>
        Effect.gen(function* () {
          const admin = yield* signUpFirstAdmin("admin")
          const junk = manifest.files.filter((file) => !file.parses).map((file) => file.path)
          const report = yield* checkLibraryScan({
            baseUrl: yield* serverUrl,
            token: admin.token,
            expected: { files: manifest.files.length, errors: junk },
          })
          expect(report.failures).toEqual([])
          expect(junk.length).toBeGreaterThanOrEqual(4)
          expect(report).toMatchObject({
            filesSeen: manifest.files.length,
            errors: junk.length,
            tracks: manifest.files.length - junk.length,
            streamed: manifest.files.length - junk.length,
          })
          // Genre lists split under the rule: `Rock;Blues`, `Instrumental/Live/…` and the rest.
          expect(report.genres).toBeGreaterThanOrEqual(8)
        }),
    )
  },
)
