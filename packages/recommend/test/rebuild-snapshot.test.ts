import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { rebuildSnapshot } from "./rebuildSnapshot.js"

describe("golden rebuild snapshot", () => {
  it("every surface, pick, pick kind, order and score (and the radios) match the recorded engine output", () => {
    const expected = JSON.parse(readFileSync(join(import.meta.dirname, "rebuild-snapshot.json"), "utf8"))
    const actual = rebuildSnapshot() as typeof expected
    expect(actual.map((c: { name: string }) => c.name)).toEqual(expected.map((c: { name: string }) => c.name))
    for (let i = 0; i < expected.length; i++) expect(actual[i], expected[i].name).toEqual(expected[i])
  })
})
