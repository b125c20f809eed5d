import * as fs from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ArtistId, QuarantineId, TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import { PASSWORD, type SignedIn } from "../support/accounts.js"
import { arrangePlays, type LibraryTrackRow, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw, rawJson } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * 360 tracks by 11 artists (at most 500, the shuffle's limit). For You keeps at most two tracks per artist and
 * withholds a mix under 15, so it needs eight artists or more (240 tracks of seed 31 have five: their
 * "X feat. Y" tracks, once artists of their own, no longer count as further artists).
 */
const root = await syntheticLibrary(360, 12)
/** Files outside the library that a delete must never reach. */
const outside = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-outside-"))

/** An SSE connection for the test's scope, once it said `: connected`. */
const listen = (who: SignedIn) =>
  Effect.gen(function* () {
    const events = yield* openSse(yield* serverUrl, who.token)
    yield* events.waitFor((frame) => frame.text === "connected")
    return events
  })
const flag = (who: SignedIn, id: string, reason = "sounds broken") =>
  who.client.quarantine.flag({ path: { id: TrackId.make(id) }, payload: { reason } })

/** The tracks `who` has an open flag on (a fresh user's are the ones the test made). */
const flaggedBy = (who: SignedIn) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ track_id: string }>`
        SELECT track_id FROM quarantine WHERE user_id = ${who.user.id} AND resolved_at IS NULL AND track_id IS NOT NULL`,
      (rows) => new Set(rows.map((row) => row.track_id)),
    ),
  )

const shuffleIds = (who: SignedIn) =>
  Effect.map(who.client.library.shuffle({ urlParams: { limit: 500 } }), (result) => result.tracks.map((t) => t.id))

const trackPath = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ path: string }>`SELECT path FROM indexed_tracks WHERE id = ${id}`, (rows) => rows[0]?.path),
  )

const openFlags = (trackId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM quarantine WHERE track_id = ${trackId} AND resolved_at IS NULL`,
      (rows) => rows[0]!.n,
    ),
  )

/** A track still in the library that nobody has flagged yet (tests delete and flag tracks as they go). */
const unflaggedTrack = (pick: (track: LibraryTrackRow) => boolean = () => true) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const taken = new Set(
      (yield* sql<{ track_id: string }>`SELECT track_id FROM quarantine WHERE track_id IS NOT NULL`).map(
        (r) => r.track_id,
      ),
    )
    return (yield* libraryTracks).find((t) => !taken.has(t.id) && pick(t))!
  })

/** A fresh open flag by `who` on a track nobody flagged yet; answers the entry. */
const freshFlag = (who: SignedIn, pick?: (track: LibraryTrackRow) => boolean) =>
  Effect.flatMap(unflaggedTrack(pick), (track) => flag(who, track.id))

/** Manager settings without a URL (saving always needs the defaults): no manager configured. */
const NO_MANAGER = { url: null, root_folder_path: "/music", quality_profile_id: 1, metadata_profile_id: 1 }

/** A fake Lidarr (API v1) on loopback: one artist, its track files, and a recorded DELETE. */
interface FakeLidarr {
  readonly url: string
  readonly requests: Array<{ method: string; url: string; apiKey: string | undefined }>
  files: Array<{ id: number; path: string }>
  readonly close: () => Promise<void>
}
const startFakeLidarr = (): Promise<FakeLidarr> =>
  new Promise((resolve) => {
    const requests: FakeLidarr["requests"] = []
    let server: Server
    const fake: FakeLidarr = {
      url: "",
      requests,
      files: [],
      close: () => new Promise((done) => server.close(() => done())),
    }
    server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://fake")
      requests.push({
        method: request.method ?? "",
        url: request.url ?? "",
        apiKey: request.headers["x-api-key"] as string,
      })
      response.setHeader("content-type", "application/json")
      if (request.method === "GET" && url.pathname === "/api/v1/artist") {
        response.end(JSON.stringify([{ id: 42, artistName: "Whoever" }]))
      } else if (request.method === "GET" && url.pathname === "/api/v1/trackfile") {
        response.end(JSON.stringify(url.searchParams.get("artistId") === "42" ? fake.files : []))
      } else if (request.method === "DELETE" && url.pathname.startsWith("/api/v1/trackfile/")) {
        response.end("{}")
      } else {
        response.statusCode = 404
        response.end("{}")
      }
    })
    server.listen(0, "127.0.0.1", () => {
      ;(fake as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve(fake)
    })
  })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "240 seconds",
})("moderation: quarantine", (it) => {
  it.scoped("flagging a track broadcasts quarantine.flagged and answers the open flag", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const bobEvents = yield* listen(bob)

      const track = yield* unflaggedTrack()
      const [entry, response] = yield* alice.client.quarantine.flag({
        path: { id: track.id },
        payload: { reason: "  clipping at 0:42 " },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      expect(entry.track_id).toBe(track.id)
      expect(entry.user_id).toBe(alice.user.id)
      expect(entry.username).toBe(alice.user.username)
      expect(entry.reason).toBe("clipping at 0:42")
      expect(entry.resolved_at).toBeNull()
      expect(entry.action).toBeNull()
      // A broadcast: bob (not the flagger) sees it too.
      const [event] = yield* bobEvents.waitFor((frame) => frame.event === "quarantine.flagged")
      expect(event!.data).toEqual({ kind: "quarantine.flagged", user_id: "", data: { track_id: track.id } })
      // Flagging again answers the same open flag, without a second event.
      const again = yield* flag(alice, track.id)
      expect(again.id).toBe(entry.id)
      expect(yield* openFlags(track.id)).toBe(1)
    }),
  )

  it.effect("a flagged track disappears from that user's shuffle; other users still get it", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const flagged = (yield* freshFlag(alice)).track_id!
      const tracks = yield* libraryTracks
      expect(yield* shuffleIds(alice)).not.toContain(flagged)
      expect(yield* shuffleIds(alice)).toHaveLength(tracks.length - 1)
      expect(yield* shuffleIds(bob)).toContain(flagged)
    }),
  )

  it.effect("a flagged track disappears from that user's Subsonic random songs; other users still get it", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const flagged = (yield* freshFlag(alice)).track_id!
      const tracks = yield* libraryTracks
      const randomSongs = (who: string) =>
        Effect.map(
          raw(
            "GET",
            `/rest/getRandomSongs?${new URLSearchParams({ u: who, p: PASSWORD, c: "vitest", v: "1.16.1", f: "json", size: "500" })}`,
          ),
          (response) =>
            (response.json as { "subsonic-response": { randomSongs: { song?: Array<{ id: string }> } } })[
              "subsonic-response"
            ].randomSongs.song?.map((song) => song.id) ?? [],
        )
      const alices = yield* randomSongs(alice.user.username)
      expect(alices).toHaveLength(tracks.length - 1)
      expect(alices).not.toContain(flagged)
      expect(yield* randomSongs(bob.user.username)).toContain(flagged)
    }),
  )

  it.effect("a flagged track disappears from that user's top tracks", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const tracks = yield* libraryTracks
      const artist = tracks[5]!.artist_id
      const own = tracks.filter((t) => t.artist_id === artist)
      yield* arrangePlays(alice.user.id, own, { times: 2 })
      yield* arrangePlays(bob.user.id, own, { times: 2 })
      const before = (yield* alice.client.plays.topTracks({ path: { id: ArtistId.make(artist) } })).tracks
      const flaggedByAlice = yield* flaggedBy(alice)
      const target = before.find((t) => !flaggedByAlice.has(t.id))!
      expect(target).toBeDefined()
      yield* flag(alice, target.id)
      const after = (yield* alice.client.plays.topTracks({ path: { id: ArtistId.make(artist) } })).tracks
      expect(after.map((t) => t.id)).not.toContain(target.id)
      expect(after).toHaveLength(before.length - 1)
      const bobs = (yield* bob.client.plays.topTracks({ path: { id: ArtistId.make(artist) } })).tracks
      expect(bobs.map((t) => t.id)).toContain(target.id)
    }),
  )

  it.effect("a flagged track disappears from that user's radio", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const seed = (yield* libraryTracks)[9]!
      const start = (who: SignedIn) =>
        who.client.radio.start({ payload: { seed: { kind: "artist", id: seed.artist_id }, size: 60 } })
      const before = yield* start(alice)
      const flaggedByAlice = yield* flaggedBy(alice)
      const target = before.tracks.find((t) => !flaggedByAlice.has(t.id))!
      expect(target).toBeDefined()
      yield* flag(alice, target.id)
      for (let i = 0; i < 3; i++) {
        const after = yield* start(alice)
        expect(after.tracks.map((t) => t.id)).not.toContain(target.id)
        // The station keeps its size unless the seed's pool ran out.
        expect(after.tracks.length).toBeGreaterThanOrEqual(before.tracks.length - 1)
      }
    }),
  )

  it.effect("a flagged track disappears from every system playlist of that user, at once and after a rebuild", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const tracks = yield* libraryTracks
      // Enough listening for every surface.
      yield* arrangePlays(alice.user.id, tracks.slice(20, 120), { times: 3, daysAgo: 3 })
      const forYou = yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      expect(forYou.tracks.length).toBeGreaterThan(0)
      const target = forYou.tracks[0]!.track.id
      yield* flag(alice, target)
      // At once: the stored snapshot still holds it, the detail, the rotation shuffle and the deck do not.
      const detail = yield* alice.client.playlists.get({ path: { id: forYou.id } })
      expect(detail.tracks.map((entry) => entry.track.id)).not.toContain(target)
      expect(detail.tracks).toHaveLength(forYou.tracks.length - 1)
      const shuffled = yield* alice.client.systemPlaylists.shuffle({ path: { kind: "for_you" } })
      expect(shuffled.tracks.map((entry) => entry.track.id)).not.toContain(target)
      const deck = yield* alice.client.discover.deck()
      const flaggedSoFar = yield* flaggedBy(alice)
      const deckTarget = deck.tracks.find((entry) => !flaggedSoFar.has(entry.track.id))
      if (deckTarget !== undefined) {
        yield* flag(alice, deckTarget.track.id)
        const after = yield* alice.client.discover.deck()
        expect(after.tracks.map((entry) => entry.track.id)).not.toContain(deckTarget.track.id)
      }
      // After a rebuild: no system playlist of hers holds any track she flagged.
      yield* alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } })
      const flaggedByAlice = yield* flaggedBy(alice)
      expect(flaggedByAlice.has(target)).toBe(true)
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ track_id: string }>`
          SELECT pt.track_id FROM playlist_tracks pt JOIN playlists p ON p.id = pt.playlist_id
          WHERE p.owner_id = ${alice.user.id} AND p.system_variant IS NOT NULL`
      expect(stored.length).toBeGreaterThan(0)
      expect(stored.filter((row) => flaggedByAlice.has(row.track_id))).toEqual([])
      for (const row of yield* alice.client.playlists.list()) {
        if (row.system_variant === null) continue
        const shown = yield* alice.client.playlists.get({ path: { id: row.id } })
        expect(shown.tracks.filter((entry) => flaggedByAlice.has(entry.track.id))).toEqual([])
      }
    }),
  )

  it.scoped("unflagging sends quarantine.unflagged to that user only and the track returns", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const aliceEvents = yield* listen(alice)
      const bobEvents = yield* listen(bob)
      const target = (yield* unflaggedTrack()).id
      yield* flag(alice, target)
      expect(yield* shuffleIds(alice)).not.toContain(target)
      // Bob unflagging alice's flag touches nothing of hers.
      yield* bob.client.quarantine.unflag({ path: { id: TrackId.make(target) } })
      expect(yield* openFlags(target)).toBe(1)
      const [, response] = yield* alice.client.quarantine.unflag({
        path: { id: TrackId.make(target) },
        withResponse: true,
      })
      expect(response.status).toBe(204)
      expect(yield* openFlags(target)).toBe(0)
      expect(yield* shuffleIds(alice)).toContain(target)
      const [event] = yield* aliceEvents.waitFor(
        (frame) => frame.event === "quarantine.unflagged" && JSON.stringify(frame.data).includes(target),
      )
      expect(event!.data).toEqual({
        kind: "quarantine.unflagged",
        user_id: alice.user.id,
        data: { track_id: target },
      })
      // A broadcast after the unflag reaches Bob: had the unflag been sent to him, it would be there by now.
      const later = yield* freshFlag(alice)
      yield* bobEvents.waitFor(
        (frame) => frame.event === "quarantine.flagged" && JSON.stringify(frame.data).includes(later.track_id!),
      )
      expect(bobEvents.frames.filter((frame) => frame.event === "quarantine.unflagged")).toEqual([])
      // Idempotent.
      yield* alice.client.quarantine.unflag({ path: { id: TrackId.make(target) } })
    }),
  )

  it.effect("bad input: an unknown track is 404, a malformed id or reason is a 400 envelope", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const tracks = yield* libraryTracks
      const unknown = "00000000-0000-4000-8000-000000000000"
      const missing = yield* rawJson("POST", `/api/tracks/${unknown}/quarantine`, { reason: "x" }, alice.token)
      expect(missing.status).toBe(404)
      expect(missing.json).toMatchObject({ error: { code: "not_found" } })
      const unflagMissing = yield* raw("DELETE", `/api/tracks/${unknown}/quarantine`, { token: alice.token })
      expect(unflagMissing.status).toBe(404)
      const malformed = yield* rawJson("POST", "/api/tracks/not-a-uuid/quarantine", { reason: "x" }, alice.token)
      expect(malformed.status).toBe(400)
      expect(malformed.json).toMatchObject({ error: { code: "invalid_request" } })
      const badReason = yield* rawJson("POST", `/api/tracks/${tracks[1]!.id}/quarantine`, { reason: 5 }, alice.token)
      expect(badReason.status).toBe(400)
      const anonymous = yield* rawJson("POST", `/api/tracks/${tracks[1]!.id}/quarantine`, { reason: "x" })
      expect(anonymous.status).toBe(401)
    }),
  )

  it.effect("admins list flags with track names and usernames, filtered by resolved, limit clamped at 200", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const alice = yield* aUser("alice")
      // The list is server-wide: start from an empty queue, then alice flags three tracks.
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM quarantine`
      for (let i = 0; i < 3; i++) yield* freshFlag(alice)
      const flaggedByAlice = yield* flaggedBy(alice)
      expect(flaggedByAlice.size).toBe(3)
      const page = yield* admin.client.moderation.list({ urlParams: { resolved: false, limit: 1000 } })
      expect(page.limit).toBe(200)
      expect(page.total).toBe(flaggedByAlice.size)
      expect(new Set(page.items.map((item) => item.track_id))).toEqual(flaggedByAlice)
      for (const item of page.items) {
        expect(item.username).toBe(alice.user.username)
        expect(item.track_title.length).toBeGreaterThan(0)
        expect(item.artist_name.length).toBeGreaterThan(0)
        expect(item.album_title.length).toBeGreaterThan(0)
      }
      const resolved = yield* admin.client.moderation.list({ urlParams: { resolved: true } })
      expect(resolved.items).toEqual([])
      const forbidden = yield* raw("GET", "/api/admin/quarantine", { token: alice.token })
      expect(forbidden.status).toBe(403)
      expect(forbidden.json).toMatchObject({ error: { code: "forbidden" } })
      const badFilter = yield* raw("GET", "/api/admin/quarantine?resolved=maybe", { token: admin.token })
      expect(badFilter.status).toBe(400)
    }),
  )

  it.scoped(
    "resolve keep closes every open flag on the track, broadcasts quarantine.resolved, and the track returns",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const alice = yield* aUser("alice")
        const bob = yield* aUser("bob")
        const bobEvents = yield* listen(bob)
        const entry = yield* freshFlag(alice)
        const trackId = entry.track_id!
        yield* flag(bob, trackId)
        expect(yield* openFlags(trackId)).toBe(2)
        const forbidden = yield* rawJson(
          "POST",
          `/api/admin/quarantine/${entry.id}/resolve`,
          { action: "keep" },
          alice.token,
        )
        expect(forbidden.status).toBe(403)
        const result = yield* admin.client.moderation.resolve({ path: { id: entry.id }, payload: { action: "keep" } })
        expect(result).toMatchObject({ id: entry.id, track_id: trackId, action: "keep", resolved: 2 })
        expect(yield* openFlags(trackId)).toBe(0)
        expect(yield* shuffleIds(alice)).toContain(trackId)
        yield* bobEvents.waitFor(
          (frame) => frame.event === "quarantine.resolved" && JSON.stringify(frame.data).includes(trackId),
        )
        const again = yield* rawJson(
          "POST",
          `/api/admin/quarantine/${entry.id}/resolve`,
          { action: "keep" },
          admin.token,
        )
        expect(again.status).toBe(409)
        expect(again.json).toMatchObject({ error: { code: "conflict" } })
        const unknown = yield* rawJson(
          "POST",
          "/api/admin/quarantine/00000000-0000-4000-8000-000000000000/resolve",
          { action: "keep" },
          admin.token,
        )
        expect(unknown.status).toBe(404)
        const badAction = yield* rawJson(
          "POST",
          `/api/admin/quarantine/${entry.id}/resolve`,
          { action: "burn" },
          admin.token,
        )
        expect(badAction.status).toBe(400)
        const listed = yield* admin.client.moderation.list({ urlParams: { resolved: true } })
        const onTrack = listed.items.filter((item) => item.track_id === trackId)
        expect(onTrack.map((item) => item.action)).toEqual(["keep", "keep"])
      }),
  )

  it.scoped(
    "resolve delete_file removes the file from disk and the track from the library, quarantine.file_deleted",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const alice = yield* aUser("alice")
        const bob = yield* aUser("bob")
        const bobEvents = yield* listen(bob)
        const entry = yield* freshFlag(alice)
        const trackId = entry.track_id!
        const file = path.join(root, (yield* trackPath(trackId))!)
        expect(fs.existsSync(file)).toBe(true)
        const result = yield* admin.client.moderation.resolve({
          path: { id: entry.id },
          payload: { action: "delete_file" },
        })
        expect(result.action).toBe("delete_file")
        expect(fs.existsSync(file)).toBe(false)
        expect(yield* trackPath(trackId)).toBeUndefined()
        expect(yield* shuffleIds(bob)).not.toContain(trackId)
        yield* bobEvents.waitFor(
          (frame) => frame.event === "quarantine.file_deleted" && JSON.stringify(frame.data).includes(trackId),
        )
        yield* bobEvents.waitFor(
          (frame) => frame.event === "quarantine.resolved" && JSON.stringify(frame.data).includes(trackId),
        )
        // The flag stays on record with the names it had.
        const listed = yield* admin.client.moderation.list({ urlParams: { resolved: true } })
        const kept = listed.items.find((item) => item.id === entry.id)!
        expect(kept.track_id).toBeNull()
        expect(kept.track_title).toBe(entry.track_title)
        // The sync feed hears of the delete.
        const sql = yield* SqlClient.SqlClient
        const changes = yield* sql<{ operation: string }>`
          SELECT operation FROM library_changes WHERE entity = 'track' AND entity_id = ${trackId}`
        expect(changes).toEqual([{ operation: "delete" }])
      }),
  )

  it.effect("delete_file never leaves the library root: a stored path with .. or a symlink out is refused", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const alice = yield* aUser("alice")
      const sql = yield* SqlClient.SqlClient
      const victim = path.join(outside, "victim.mp3")
      fs.writeFileSync(victim, "not yours")
      // 1. `..` in the stored path.
      const dotdot = yield* freshFlag(alice)
      yield* sql`UPDATE indexed_tracks SET path = ${`../${path.basename(outside)}/victim.mp3`} WHERE id = ${dotdot.track_id}`
      const refused = yield* rawJson(
        "POST",
        `/api/admin/quarantine/${dotdot.id}/resolve`,
        { action: "delete_file" },
        admin.token,
      )
      expect(refused.status).toBe(409)
      expect(refused.json).toMatchObject({ error: { code: "conflict" } })
      expect(fs.existsSync(victim)).toBe(true)
      expect(yield* openFlags(dotdot.track_id!)).toBe(1)
      // 2. A symlinked file inside the library that points out.
      const linked = yield* freshFlag(alice)
      fs.symlinkSync(victim, path.join(root, "link-out.mp3"))
      yield* sql`UPDATE indexed_tracks SET path = 'link-out.mp3' WHERE id = ${linked.track_id}`
      const refusedLink = yield* rawJson(
        "POST",
        `/api/admin/quarantine/${linked.id}/resolve`,
        { action: "delete_file" },
        admin.token,
      )
      expect(refusedLink.status).toBe(409)
      expect(fs.existsSync(victim)).toBe(true)
      expect(fs.lstatSync(path.join(root, "link-out.mp3")).isSymbolicLink()).toBe(true)
      // 3. A symlinked folder inside the library that points out.
      const folder = yield* freshFlag(alice)
      fs.symlinkSync(outside, path.join(root, "folder-out"))
      yield* sql`UPDATE indexed_tracks SET path = 'folder-out/victim.mp3' WHERE id = ${folder.track_id}`
      const refusedFolder = yield* rawJson(
        "POST",
        `/api/admin/quarantine/${folder.id}/resolve`,
        { action: "delete_file" },
        admin.token,
      )
      expect(refusedFolder.status).toBe(409)
      expect(fs.readFileSync(victim, "utf8")).toBe("not yours")
      // 4. An absolute stored path.
      const absolute = yield* freshFlag(alice)
      yield* sql`UPDATE indexed_tracks SET path = ${victim} WHERE id = ${absolute.track_id}`
      const refusedAbsolute = yield* rawJson(
        "POST",
        `/api/admin/quarantine/${absolute.id}/resolve`,
        { action: "delete_file" },
        admin.token,
      )
      expect(refusedAbsolute.status).toBe(409)
      expect(fs.existsSync(victim)).toBe(true)
    }),
  )

  it.effect("delete_via_manager without a configured manager is 409 conflict and changes nothing", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const alice = yield* aUser("alice")
      yield* admin.client.manager.set({ payload: NO_MANAGER })
      expect((yield* admin.client.manager.get()).url).toBeNull()
      const entry = yield* freshFlag(alice)
      const response = yield* rawJson(
        "POST",
        `/api/admin/quarantine/${entry.id}/resolve`,
        { action: "delete_via_manager" },
        admin.token,
      )
      expect(response.status).toBe(409)
      expect(response.json).toMatchObject({ error: { code: "conflict" } })
      expect(yield* openFlags(entry.track_id!)).toBe(1)
    }),
  )

  it.scoped(
    "delete_via_manager deletes the file through the manager's API and broadcasts quarantine.deleted_via_manager",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const alice = yield* aUser("alice")
        const bob = yield* aUser("bob")
        const bobEvents = yield* listen(bob)
        const lidarr = yield* Effect.promise(startFakeLidarr)
        yield* Effect.addFinalizer(() => Effect.promise(() => lidarr.close()))
        // Other tests expect no manager: unset it when this test ends.
        yield* Effect.addFinalizer(() => Effect.orDie(admin.client.manager.set({ payload: NO_MANAGER })))
        // Configured the way an admin does it: the request workflow's manager settings.
        yield* admin.client.manager.set({
          payload: {
            url: lidarr.url,
            api_key: "secret-key",
            root_folder_path: "/music",
            quality_profile_id: 1,
            metadata_profile_id: 1,
          },
        })
        const entry = yield* freshFlag(alice)
        const trackId = entry.track_id!
        const stored = (yield* trackPath(trackId))!
        lidarr.files = [
          { id: 6, path: `/music/Other/${path.basename(stored)}x` },
          { id: 7, path: `/music/${stored}` },
        ]
        const result = yield* admin.client.moderation.resolve({
          path: { id: entry.id },
          payload: { action: "delete_via_manager" },
        })
        expect(result.action).toBe("delete_via_manager")
        expect(lidarr.requests.filter((r) => r.method === "DELETE").map((r) => r.url)).toEqual(["/api/v1/trackfile/7"])
        expect(lidarr.requests.every((r) => r.apiKey === "secret-key")).toBe(true)
        expect(yield* trackPath(trackId)).toBeUndefined()
        yield* bobEvents.waitFor(
          (frame) => frame.event === "quarantine.deleted_via_manager" && JSON.stringify(frame.data).includes(trackId),
        )
        // A manager that is down: 503, the flag stays open.
        const next = yield* freshFlag(alice)
        yield* Effect.promise(() => lidarr.close())
        const down = yield* rawJson(
          "POST",
          `/api/admin/quarantine/${next.id}/resolve`,
          { action: "delete_via_manager" },
          admin.token,
        )
        expect(down.status).toBe(503)
        expect(yield* openFlags(next.track_id!)).toBe(1)
      }),
  )

  it.effect("a quarantine id of another entry never resolves a different track", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const alice = yield* aUser("alice")
      const mine = yield* freshFlag(alice)
      const other = yield* freshFlag(alice)
      yield* admin.client.moderation.resolve({
        path: { id: QuarantineId.make(mine.id) },
        payload: { action: "keep" },
      })
      expect(yield* openFlags(mine.track_id!)).toBe(0)
      expect(yield* openFlags(other.track_id!)).toBe(1)
    }),
  )
})
