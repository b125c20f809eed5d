import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"

/**
 * Issue 27: access to the catalogue is enforced in one place. A repository reads the catalogue for a caller
 * through `db/libraryScope.ts` (`catalogueIn`: the caller's `tracks`, `albums`, `artists`), never through the
 * views of every library. Every statement that still names a view is listed here with why it may see every
 * library; a new one fails this test until it reads through the caller's catalogue (or is added, with a reason).
 */
const SERVER = path.resolve(import.meta.dirname, "../src")

/** How many times each file names `FROM|JOIN tracks|albums|artists`, and why. */
const CATALOGUE_WIDE: Record<string, { readonly reads: number; readonly why: string }> = {
  "library/CatalogRepository.ts": { reads: 21, why: "the scanner's writer and tidy: the whole index" },
  "library/BrowseRepository.ts": {
    reads: 5,
    why: "the engine's catalogue (catalogText) and the admin's cover roll-ups (coverCounts, artistArtCounts)",
  },
  "library/LibrariesRepository.ts": { reads: 1, why: "an admin's track count per library" },
  "enrichment/EnrichmentRepository.ts": { reads: 9, why: "background enrichment of the whole catalogue" },
  "history/ImportRepository.ts": { reads: 1, why: "import matching against the whole catalogue" },
  "history/navidrome/NavidromeRepository.ts": { reads: 4, why: "an admin's Navidrome import" },
  "diagnostics/PlaybackErrorRepository.ts": { reads: 1, why: "an admin's playback-error report" },
  "listening/PlayRepository.ts": {
    reads: 1,
    why: "an import's plays match any present track (taste is built from every play; reads filter them)",
  },
}

const VIEW_READ = /\b(?:FROM|JOIN)\s+(?:tracks|albums|artists)\b/g

const repositories = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : repositories(full)
    return entry.name.endsWith("Repository.ts") ? [full] : []
  })

describe("library access architecture", () => {
  it("no repository reads tracks, albums or artists without the access filter, except the listed catalogue-wide reads", () => {
    const found: Record<string, number> = {}
    for (const file of repositories(SERVER)) {
      const reads = fs.readFileSync(file, "utf8").match(VIEW_READ)?.length ?? 0
      if (reads > 0) found[path.relative(SERVER, file).split(path.sep).join("/")] = reads
    }
    const allowed = Object.fromEntries(Object.entries(CATALOGUE_WIDE).map(([file, entry]) => [file, entry.reads]))
    expect(found).toEqual(allowed)
  })

  it("the caller-facing reads go through catalogueIn", () => {
    const browse = fs.readFileSync(path.join(SERVER, "library/BrowseRepository.ts"), "utf8")
    expect(browse).toContain("catalogueIn(sql, scope)")
    // Every statement between the scope helper's uses names the caller's catalogue, not a view.
    expect((browse.match(/\$\{c\.(?:tracks|albums|artists)\}/g) ?? []).length).toBeGreaterThan(30)
  })
})
