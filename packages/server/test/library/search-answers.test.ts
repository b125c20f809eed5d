import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { versionedAnswers } from "../../src/library/versionedAnswers.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { fixtureLibrary, scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

describe("versionedAnswers: kept per key while the version holds", () => {
  it("answers a kept key only for the version it was computed for", () => {
    const answers = versionedAnswers<string>(4)
    answers.set("the", "v1", "answer 1")
    expect(answers.get("the", "v1")).toBe("answer 1")
    expect(answers.get("the", "v2")).toBeUndefined()
    // A miss on a newer version drops the old answer: it can never be served again.
    expect(answers.get("the", "v1")).toBeUndefined()
  })

  it("keeps at most its capacity, dropping the least recently used first", () => {
    const answers = versionedAnswers<number>(2)
    answers.set("a", "v", 1)
    answers.set("b", "v", 2)
    expect(answers.get("a", "v")).toBe(1)
    answers.set("c", "v", 3)
    expect(answers.size).toBe(2)
    expect(answers.get("b", "v")).toBeUndefined()
    expect([answers.get("a", "v"), answers.get("c", "v")]).toEqual([1, 3])
  })
})

const { root, manifest } = await fixtureLibrary()
// A track whose title no other fixture file shares, moved out of the library and back.
const audio = manifest.files.flatMap((file) => (file.kind === "audio" ? [file] : []))
const lone = audio.find(
  (file) =>
    file.expect.title.length > 3 && audio.filter((other) => other.expect.title === file.expect.title).length === 1,
)!
const aside = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-aside-"))

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "search answers follow the library",
  (it) => {
    it.effect(
      "a scan that removes or restores a track changes the next search for it, though the same words were asked before",
      () =>
        Effect.gen(function* () {
          const { client } = yield* signUpFirstAdmin("admin")
          yield* scanNow()
          const titles = Effect.map(client.library.search({ urlParams: { q: lone.expect.title } }), (found) =>
            found.tracks.map((track) => track.title),
          )
          expect(yield* titles).toContain(lone.expect.title)
          expect(yield* titles).toContain(lone.expect.title)

          fs.renameSync(path.join(root, lone.path), path.join(aside, "moved"))
          yield* scanNow()
          expect(yield* titles).not.toContain(lone.expect.title)

          fs.renameSync(path.join(aside, "moved"), path.join(root, lone.path))
          yield* scanNow()
          expect(yield* titles).toContain(lone.expect.title)
        }),
    )
  },
)
