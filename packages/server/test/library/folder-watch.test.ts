import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type FolderWatch, watchFolders } from "../../src/library/folderWatch.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check` holds (inotify and the stat of a new folder are asynchronous), or fails after 3 s. */
const eventually = async (check: () => boolean) => {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 3000) throw new Error("timed out")
    await sleep(20)
  }
}

describe("folder watch", () => {
  let watch: FolderWatch | undefined
  let root: string | undefined
  afterEach(() => {
    watch?.close()
    if (root !== undefined) fs.rmSync(root, { recursive: true, force: true })
  })

  it("holds one watch per wanted folder, none per file; sees changes in every folder", async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-folder-watch-"))
    for (const album of ["A/One", "A/Two", "B/Three", "@eaDir/thumbs"]) {
      fs.mkdirSync(path.join(root, album), { recursive: true })
      for (let i = 1; i <= 5; i++) fs.writeFileSync(path.join(root, album, `0${i}.mp3`), "x")
    }
    const changes: Array<string> = []
    watch = await watchFolders(
      root,
      (relative) => !relative.startsWith("@eaDir"),
      (changed) => changes.push(path.relative(root!, changed)),
      (error) => {
        throw error
      },
    )
    // root, A, A/One, A/Two, B, B/Three: the skipped folder and the 20 files hold nothing.
    expect(watch.folders()).toBe(6)
    fs.writeFileSync(path.join(root, "B", "Three", "06.mp3"), "x")
    await eventually(() => changes.includes(path.join("B", "Three", "06.mp3")))
    fs.writeFileSync(path.join(root, "@eaDir", "thumbs", "x.jpg"), "x")
    await sleep(200)
    expect(changes.some((changed) => changed.startsWith("@eaDir"))).toBe(false)
  })

  it("a folder made later is watched with what is below it; a folder removed drops its watches", async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-folder-watch-"))
    const changes: Array<string> = []
    watch = await watchFolders(
      root,
      () => true,
      (changed) => changes.push(path.relative(root!, changed)),
      (error) => {
        throw error
      },
    )
    expect(watch.folders()).toBe(1)
    // A copied artist folder: it arrives with an album inside it.
    const staged = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-folder-staged-"))
    fs.mkdirSync(path.join(staged, "Album"))
    fs.renameSync(staged, path.join(root, "Artist"))
    await eventually(() => watch!.folders() === 3)
    fs.writeFileSync(path.join(root, "Artist", "Album", "01.flac"), "x")
    await eventually(() => changes.includes(path.join("Artist", "Album", "01.flac")))

    fs.rmSync(path.join(root, "Artist"), { recursive: true })
    await eventually(() => watch!.folders() === 1)
  })

  it("a folder that cannot be read fails the watch and keeps nothing", async () => {
    const missing = path.join(os.tmpdir(), `tonearm-folder-watch-missing-${process.pid}`)
    await expect(
      watchFolders(
        missing,
        () => true,
        () => {},
        () => {},
      ),
    ).rejects.toThrow(missing)
  })
})
