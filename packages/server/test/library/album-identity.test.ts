/**
 * Which files make one album (contract "Library model": editions; decisions "Album identity"), over HTTP on real
 * files: without a release id an album is its album artist, title and album folder, disc sub-folders joining it.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { AlbumId } from "@tonearm/core"
import { Effect } from "effect"
import { taggedFile } from "../../fixtures/synthetic.js"
import type { TagSet } from "../../fixtures/tags.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-identity-"))
const write = async (relative: string, tags: TagSet) => {
  const target = path.join(root, relative)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.writeFileSync(target, await taggedFile("flac", tags))
}
const track = (title: string, album: string, no: number, disc?: number): TagSet => ({
  title,
  artist: "Carol Taylor",
  albumArtist: "Carol Taylor",
  album,
  date: "1994",
  track: { no },
  ...(disc === undefined ? {} : { disc: { no: disc, of: 2 } }),
})
// Two self-titled albums of one year in sibling folders (no release id), and a two-disc album in CD folders.
await write("Carol Taylor/1994 - Carol Taylor/01 A.flac", track("A", "Carol Taylor", 1))
await write("Carol Taylor/1994 - Carol Taylor/02 B.flac", track("B", "Carol Taylor", 2))
await write("Carol Taylor/1994 - Carol Taylor (2)/01 C.flac", track("C", "Carol Taylor", 1))
await write("Carol Taylor/Double/CD1/01 D.flac", track("D", "Double", 1, 1))
await write("Carol Taylor/Double/CD2/01 E.flac", track("E", "Double", 1, 2))

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "album identity",
  (it) => {
    it.effect(
      "album identity: same artist, title and year in two folders are two albums; CD1/CD2 folders are one; a moved album folder keeps its id and likes",
      () =>
        Effect.gen(function* () {
          const { client } = yield* signUpFirstAdmin("admin")
          yield* scanNow()
          const albums = (yield* client.library.albums({ urlParams: { limit: 50 } })).items
          const selfTitled = albums.filter((album) => album.title === "Carol Taylor")
          expect(selfTitled.map((album) => album.track_count).sort()).toEqual([1, 2])
          const double = albums.filter((album) => album.title === "Double")
          expect(double.map((album) => album.track_count)).toEqual([2])
          const detail = yield* client.library.album({ path: { id: AlbumId.make(double[0]!.id) } })
          expect(detail.discs.map((disc) => disc.number)).toEqual([1, 2])

          // The two-track album's folder moves: same files, new place; the album keeps its id, so its like stays.
          const moved = selfTitled.find((album) => album.track_count === 2)!
          yield* client.likes.likeAlbum({ path: { id: AlbumId.make(moved.id) } })
          fs.renameSync(
            path.join(root, "Carol Taylor/1994 - Carol Taylor"),
            path.join(root, "Carol Taylor/Carol Taylor"),
          )
          yield* scanNow()
          const after = (yield* client.library.albums({ urlParams: { limit: 50 } })).items
          expect(after.filter((album) => album.title === "Carol Taylor").map((album) => album.id)).toContain(moved.id)
          expect(after.length).toBe(albums.length)
          const likes = yield* client.likes.list()
          expect(likes.albums.map((album) => album.id)).toEqual([moved.id])
        }),
    )
  },
)
