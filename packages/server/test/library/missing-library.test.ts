import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Scanner } from "../../src/library/index.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { TestServerLive } from "../support/TestServer.js"

const missing = path.join(os.tmpdir(), `tonearm-no-such-library-${process.pid}`)

layer(TestServerLive({ libraryDir: missing }), { excludeTestServices: true })("a missing library folder", (it) => {
  it.effect("fails the scan with a one-line reason naming the folder and the flag; the server keeps serving", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      const scanner = yield* Scanner
      const error = yield* scanner.scan({ full: false }).pipe(Effect.flip)
      expect(error).toMatchObject({ _tag: "LibraryFolderUnreadable" })
      expect(error.message).toContain(missing)
      expect(error.message).toContain("--library")
      expect(error.message).not.toContain("\n")
      const status = yield* admin.client.scan.status()
      expect(status.state).toBe("failed")
      const started = yield* admin.client.scan.start({ payload: {} })
      expect(started.started).toBe(true)
      expect((yield* admin.client.me.get()).username).toBe("admin")
    }),
  )
})
