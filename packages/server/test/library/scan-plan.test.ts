import { describe, expect, it } from "@effect/vitest"
import type { KnownFile, KnownFolder } from "../../src/library/CatalogRepository.js"
import { type KnownIndex, plan } from "../../src/library/scan/plan.js"
import type { FoundFile, FoundFolder, SidecarStat, WalkResult } from "../../src/library/walk.js"

// Hand-built walks and indexes: the plan is pure, so no disk and no database.
const file = (path: string, sizeBytes = 100, mtimeMs = 1_000): FoundFile => ({ path, sizeBytes, mtimeMs })

const walked = (files: ReadonlyArray<FoundFile>, sidecars: Record<string, SidecarStat> = {}): WalkResult => {
  const folders = new Map<string, FoundFolder>()
  for (const found of files) {
    const slash = found.path.lastIndexOf("/")
    const folder = slash < 0 ? "" : found.path.slice(0, slash)
    const entry = folders.get(folder) ?? { path: folder, files: [] }
    entry.files.push(found)
    folders.set(folder, entry)
  }
  return { folders, sidecars: new Map(Object.entries(sidecars)) }
}

/** The index as a previous scan of `files` (and these sidecars) left it. */
const indexed = (
  files: ReadonlyArray<FoundFile>,
  options: { readonly errors?: ReadonlyArray<FoundFile>; readonly sidecars?: Record<string, SidecarStat> } = {},
): KnownIndex => {
  const errors = options.errors ?? []
  const errorPaths = new Set(errors.map((error) => error.path))
  const asKnown = (found: FoundFile): [string, KnownFile] => [
    found.path,
    { sizeBytes: found.sizeBytes, mtimeMs: found.mtimeMs },
  ]
  const folders = new Map<string, KnownFolder>()
  for (const folder of walked([...files, ...errors]).folders.keys()) {
    const sidecar = options.sidecars?.[folder]
    folders.set(folder, { sidecar: sidecar?.path ?? null, sidecarMtimeMs: sidecar?.mtimeMs ?? null })
  }
  return {
    tracks: new Map(files.filter((found) => !errorPaths.has(found.path)).map(asKnown)),
    errors: new Map(errors.map(asKnown)),
    folders,
  }
}

const dirtyFolders = (planned: ReturnType<typeof plan>) => planned.dirty.map(({ folder }) => folder.path)

const library = [
  file("A/Album/01.mp3"),
  file("A/Album/02.mp3"),
  file("B/Other/01.flac"),
  file("B/Other/02.flac"),
  file("C/Single/01.ogg"),
]

describe("scan plan", () => {
  it("an unchanged library plans nothing to read, remove or forget", () => {
    const planned = plan(walked(library), indexed(library), false)
    expect(planned).toEqual({
      filesSeen: 5,
      dirty: [],
      filesToRead: 0,
      removedPaths: [],
      foldersToForget: [],
      errorsToForget: [],
      errorsKept: 0,
    })
  })

  it("a full scan re-reads every folder, changed or not", () => {
    const planned = plan(walked(library), indexed(library), true)
    expect(dirtyFolders(planned).sort()).toEqual(["A/Album", "B/Other", "C/Single"])
    expect(planned.filesToRead).toBe(5)
  })

  it("a new file dirties its folder, and the whole folder is read", () => {
    const planned = plan(walked([...library, file("A/Album/03.mp3")]), indexed(library), false)
    expect(dirtyFolders(planned)).toEqual(["A/Album"])
    expect(planned.filesToRead).toBe(3)
  })

  it("a file whose size or mtime changed dirties its folder", () => {
    const resized = library.map((found) => (found.path === "B/Other/02.flac" ? file(found.path, 101) : found))
    expect(dirtyFolders(plan(walked(resized), indexed(library), false))).toEqual(["B/Other"])
    const touched = library.map((found) => (found.path === "C/Single/01.ogg" ? file(found.path, 100, 2_000) : found))
    expect(dirtyFolders(plan(walked(touched), indexed(library), false))).toEqual(["C/Single"])
  })

  it("a gone file is removed, and the folder that lost it is re-read", () => {
    const planned = plan(walked(library.filter((found) => found.path !== "A/Album/02.mp3")), indexed(library), false)
    expect(planned.removedPaths).toEqual(["A/Album/02.mp3"])
    expect(dirtyFolders(planned)).toEqual(["A/Album"])
    expect(planned.filesSeen).toBe(4)
  })

  it("a folder whose files are all gone has its tracks removed and is forgotten", () => {
    const planned = plan(walked(library.filter((found) => !found.path.startsWith("B/"))), indexed(library), false)
    expect([...planned.removedPaths].sort()).toEqual(["B/Other/01.flac", "B/Other/02.flac"])
    expect(planned.foldersToForget).toEqual(["B/Other"])
    expect(planned.dirty).toEqual([])
  })

  it("a folder the index never recorded is read even when its files are known", () => {
    const known = indexed(library)
    const folders = new Map(known.folders)
    folders.delete("C/Single")
    expect(dirtyFolders(plan(walked(library), { ...known, folders }, false))).toEqual(["C/Single"])
  })

  it("a new, changed or gone sidecar cover dirties its folder", () => {
    const cover = { path: "A/Album/cover.jpg", mtimeMs: 5 }
    const before = indexed(library, { sidecars: { "A/Album": cover } })
    expect(dirtyFolders(plan(walked(library, { "A/Album": cover }), before, false))).toEqual([])
    expect(dirtyFolders(plan(walked(library, { "A/Album": { ...cover, mtimeMs: 6 } }), before, false))).toEqual([
      "A/Album",
    ])
    expect(dirtyFolders(plan(walked(library), before, false))).toEqual(["A/Album"])
    const newCover = { "A/Album": cover, "B/Other": { path: "B/Other/folder.png", mtimeMs: 1 } }
    expect(dirtyFolders(plan(walked(library, newCover), before, false))).toEqual(["B/Other"])
  })

  it("a disc folder takes its parent's cover, and re-reads when that cover changes", () => {
    const discs = [file("D/Box/CD1/01.mp3"), file("D/Box/CD2/01.mp3")]
    const cover = { path: "D/Box/cover.jpg", mtimeMs: 5 }
    const planned = plan(walked(discs, { "D/Box": cover }), indexed(discs), false)
    expect(planned.dirty.map(({ folder, sidecar }) => [folder.path, sidecar])).toEqual([
      ["D/Box/CD1", cover],
      ["D/Box/CD2", cover],
    ])
    const now = indexed(discs, { sidecars: { "D/Box/CD1": cover, "D/Box/CD2": cover } })
    expect(dirtyFolders(plan(walked(discs, { "D/Box": cover }), now, false))).toEqual([])
  })

  it("a file that was a scan error is re-read only when it changed", () => {
    const broken = file("C/Single/02.ogg", 7)
    const known = indexed([...library, broken], { errors: [broken] })
    expect(dirtyFolders(plan(walked([...library, broken]), known, false))).toEqual([])
    expect(dirtyFolders(plan(walked([...library, file(broken.path, 8)]), known, false))).toEqual(["C/Single"])
  })

  it("errors of gone files are forgotten; errors of unchanged files in folders not re-read still count", () => {
    const brokenHere = file("C/Single/02.ogg", 7)
    const brokenGone = file("A/Album/03.mp3", 7)
    const known = indexed([...library, brokenHere, brokenGone], { errors: [brokenHere, brokenGone] })
    const planned = plan(walked([...library, brokenHere]), known, false)
    expect(planned.errorsToForget).toEqual(["A/Album/03.mp3"])
    expect(planned.errorsKept).toBe(1)
    // Re-read, the folder's error is counted again by the write, not kept.
    expect(plan(walked([...library, brokenHere]), known, true).errorsKept).toBe(0)
  })

  it("files at the library root form the root folder", () => {
    const loose = [file("loose.mp3")]
    const planned = plan(walked(loose), indexed([]), false)
    expect(dirtyFolders(planned)).toEqual([""])
    expect(plan(walked([]), indexed(loose), false)).toMatchObject({
      removedPaths: ["loose.mp3"],
      foldersToForget: [""],
    })
  })
})
