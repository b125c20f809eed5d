import type { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type ImportStatus, importPlaySource, TrackId } from "@tonearm/core"
import { DateTime, Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { type RawResponse, raw } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"
import {
  finished,
  lbListen,
  libraryTracks,
  makeZip,
  playsOf,
  spotifyEntry,
  startImport,
  upload,
} from "./importSupport.js"

const { root } = await fixtureLibrary()

const T0 = 1_600_000_000

/** The import routes' own body limit in this file (every export here is far smaller). */
const MAX_IMPORT_BYTES = 256 * 1024

layer(
  Layer.mergeAll(AdminLive(), ScannedLive).pipe(
    Layer.provideMerge(TestServerLive({ libraryDir: root, maxImportBytes: MAX_IMPORT_BYTES })),
  ),
  {
    excludeTestServices: true,
    timeout: "180 seconds",
  },
)("history imports", (it) => {
  it.effect(
    "a ListenBrainz export becomes plays: counts, times, source import:listenbrainz_export, client_id import",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const tracks = (yield* libraryTracks).slice(0, 5)
        const listens = [
          ...tracks.map((track, i) => lbListen(track.artist, track.title, T0 + i * 600, track.album)),
          lbListen("Nobody In This Library", "No Such Song", T0 + 10_000),
          { listened_at: T0 + 11_000, track_metadata: { artist_name: "Someone", track_name: "" } },
        ]
        const id = yield* startImport(alice, JSON.stringify(listens), "listenbrainz_export")
        const status: ImportStatus = yield* finished(alice, id)
        expect(status).toMatchObject({
          id,
          source: "listenbrainz_export",
          state: "done",
          total: 7,
          matched: 5,
          unmatched: 2,
          duplicates: 0,
          message: null,
        })
        expect(status.started_at).not.toBeNull()
        expect(status.finished_at).not.toBeNull()
        const plays = yield* playsOf(alice.user.id)
        expect(plays.map((play) => play.track_id)).toEqual(tracks.map((track) => track.id))
        for (const [i, play] of plays.entries()) {
          expect(play.started_at.getTime()).toBe((T0 + i * 600) * 1000)
          expect(play).toMatchObject({
            source: "import:listenbrainz_export",
            client_id: "import",
            pick_kind: null,
            device_class: null,
            skipped: false,
            duration_played_ms: tracks[i]!.duration_ms,
          })
          expect(play.ended_at!.getTime()).toBe(play.started_at.getTime() + tracks[i]!.duration_ms)
        }
        const unmatched = yield* alice.client.imports.unmatched({ path: { id: status.id }, urlParams: {} })
        expect(unmatched.items.map((item) => [item.artist, item.title, item.reason])).toEqual([
          ["Nobody In This Library", "No Such Song", "no_match"],
          ["Someone", "", "incomplete"],
        ])
        expect(unmatched.cursor).toBeNull()
      }),
  )

  it.effect("a file part typed application/json (as browsers send a .json file) is the file, not a form field", () =>
    Effect.gen(function* () {
      const dana = yield* aUser("dana")
      const tracks = (yield* libraryTracks).slice(0, 3)
      const listens = tracks.map((track, i) => lbListen(track.artist, track.title, T0 + i * 300))
      const response = yield* upload(
        dana,
        JSON.stringify(listens),
        { source: "listenbrainz_export" },
        { fileType: "application/json" },
      )
      expect(response.status, response.text).toBe(202)
      const status = yield* finished(dana, (response.json as { id: string }).id)
      expect(status).toMatchObject({ state: "done", total: 3, matched: 3 })
    }),
  )

  it.effect("ListenBrainz JSON lines and a ListenBrainz zip read the same", () =>
    Effect.gen(function* () {
      const bob = yield* aUser("bob")
      const tracks = (yield* libraryTracks).slice(0, 4)
      const lines = tracks.map((track, i) => JSON.stringify(lbListen(track.artist, track.title, T0 + i * 300)))
      const fromLines = yield* finished(bob, yield* startImport(bob, `${lines.join("\n")}\n`, "listenbrainz_export"))
      expect(fromLines).toMatchObject({ state: "done", total: 4, matched: 4, unmatched: 0, duplicates: 0 })
      const carol = yield* aUser("carol")
      const zip = makeZip({
        "user.json": JSON.stringify({ user_name: "carol" }),
        "feedback.jsonl": "",
        "listens/2020/9.jsonl": `${lines.slice(0, 2).join("\n")}\n`,
        "listens/2020/10.jsonl": `${lines.slice(2).join("\n")}\n`,
      })
      const fromZip = yield* finished(carol, yield* startImport(carol, zip, "listenbrainz_export"))
      expect(fromZip).toMatchObject({ state: "done", total: 4, matched: 4, duplicates: 0 })
      expect((yield* playsOf(carol.user.id)).map((play) => play.started_at.getTime())).toEqual(
        (yield* playsOf(bob.user.id)).map((play) => play.started_at.getTime()),
      )
    }),
  )

  it.effect(
    "Spotify: a play starts ms_played before ts, the skip rule applies to ms played, podcasts are ignored",
    () =>
      Effect.gen(function* () {
        const dave = yield* aUser("dave")
        const sql = yield* SqlClient.SqlClient
        // The library's last track, made 200 s long (no other test reads it).
        const track = (yield* libraryTracks).at(-1)!
        yield* sql`UPDATE tracks SET duration_ms = 200000 WHERE id = ${track.id}`
        const end = Date.UTC(2021, 4, 1, 12, 0, 0)
        const entries = [
          // 45 s: over 30 s, not a skip.
          spotifyEntry(track.artist, track.title, end, 45_000),
          // 5 s: under 30 s and under half the track, a skip.
          spotifyEntry(track.artist, track.title, end + 60_000, 5_000),
          // A podcast episode: not music, not counted.
          spotifyEntry(null, null, end + 120_000, 1_800_000),
          // More than the track's length played: clamped to it.
          spotifyEntry(track.artist, track.title, end + 900_000, 10_000_000),
        ]
        const status = yield* finished(dave, yield* startImport(dave, JSON.stringify(entries), "spotify_extended"))
        expect(status).toMatchObject({ state: "done", total: 3, matched: 3, unmatched: 0, duplicates: 0 })
        const plays = yield* playsOf(dave.user.id)
        expect(plays.map((play) => [play.started_at.getTime(), play.duration_played_ms, play.skipped])).toEqual([
          [end + 900_000 - 10_000_000, 200_000, false],
          [end - 45_000, 45_000, false],
          [end + 60_000 - 5_000, 5_000, true],
        ])
        expect(plays.every((play) => play.source === importPlaySource("spotify_extended"))).toBe(true)
        expect(plays.every((play) => play.client_id === "import" && play.pick_kind === null)).toBe(true)
      }),
  )

  it.effect("Spotify: the zip of a download reads the audio history files only", () =>
    Effect.gen(function* () {
      const erin = yield* aUser("erin")
      const tracks = (yield* libraryTracks).slice(0, 3)
      const end = Date.UTC(2019, 0, 1)
      const audio = (from: number, to: number) =>
        JSON.stringify(
          tracks
            .slice(from, to)
            .map((track, i) => spotifyEntry(track.artist, track.title, end + (from + i) * 60_000, 40_000)),
        )
      const zip = makeZip({
        "Spotify Extended Streaming History/ReadMeFirst_ExtendedStreamingHistory.pdf": "%PDF-1.4",
        "Spotify Extended Streaming History/Streaming_History_Audio_2018-2019_0.json": audio(0, 2),
        "Spotify Extended Streaming History/Streaming_History_Audio_2019_1.json": audio(2, 3),
        "Spotify Extended Streaming History/Streaming_History_Video_2019.json": audio(0, 3),
      })
      const status = yield* finished(erin, yield* startImport(erin, zip, "spotify_extended"))
      expect(status).toMatchObject({ state: "done", total: 3, matched: 3 })
      expect((yield* playsOf(erin.user.id)).map((play) => play.track_id)).toEqual(tracks.map((track) => track.id))
    }),
  )

  it.effect("idempotence: the same file twice adds nothing the second time (duplicates = matched)", () =>
    Effect.gen(function* () {
      const fay = yield* aUser("fay")
      const tracks = (yield* libraryTracks).slice(0, 6)
      const file = JSON.stringify(tracks.map((track, i) => lbListen(track.artist, track.title, T0 + i * 400)))
      const first = yield* finished(fay, yield* startImport(fay, file, "listenbrainz_export"))
      const before = yield* playsOf(fay.user.id)
      const second = yield* finished(fay, yield* startImport(fay, file, "listenbrainz_export"))
      expect(first).toMatchObject({ matched: 6, duplicates: 0 })
      expect(second).toMatchObject({ state: "done", total: 6, matched: 6, duplicates: 6 })
      expect(yield* playsOf(fay.user.id)).toEqual(before)
    }),
  )

  it.effect("idempotence: a listen already played live in the same second (any source) is a duplicate", () =>
    Effect.gen(function* () {
      const gus = yield* aUser("gus")
      const [track] = yield* libraryTracks
      yield* gus.client.plays.report({
        payload: { type: "play_started", track_id: TrackId.make(track!.id), client_id: "phone" },
      })
      const [live] = yield* playsOf(gus.user.id)
      const second = Math.floor(live!.started_at.getTime() / 1000)
      const status = yield* finished(
        gus,
        yield* startImport(gus, JSON.stringify([lbListen(track!.artist, track!.title, second)]), "listenbrainz_export"),
      )
      expect(status).toMatchObject({ matched: 1, duplicates: 1 })
      expect(yield* playsOf(gus.user.id)).toHaveLength(1)
    }),
  )

  it.effect("another user's import id is 404 on every import route; unknown ids too", () =>
    Effect.gen(function* () {
      const owner = yield* aUser("owner")
      const other = yield* aUser("other")
      const [track] = yield* libraryTracks
      const id = yield* startImport(
        owner,
        JSON.stringify([lbListen(track!.artist, track!.title, T0), lbListen("No", "Match", T0 + 1)]),
        "listenbrainz_export",
      )
      yield* finished(owner, id)
      for (const path of [`/api/me/imports/${id}`, `/api/me/imports/${id}/unmatched`]) {
        const response = yield* raw("GET", path, { token: other.token })
        expect(response.status).toBe(404)
        expect(response.json).toEqual({ error: { code: "not_found", message: "no such import" } })
      }
      expect(
        (yield* raw("GET", "/api/me/imports/00000000-0000-4000-8000-000000000000", { token: owner.token })).status,
      ).toBe(404)
      expect((yield* raw("GET", "/api/me/imports/not-a-uuid", { token: owner.token })).status).toBe(400)
      // The admin route is for admins only.
      expect((yield* raw("GET", `/api/admin/imports/${id}`, { token: other.token })).status).toBe(403)
      const list = yield* other.client.imports.list({ urlParams: {} })
      expect(list.items).toEqual([])
      const own = yield* owner.client.imports.list({ urlParams: {} })
      expect(own.items.map((item) => item.id)).toEqual([id])
    }),
  )

  it.effect("a bad upload is 400 invalid_request, never 500, and leaves no job", () =>
    Effect.gen(function* () {
      const hal = yield* aUser("hal")
      const [track] = yield* libraryTracks
      const spotify = JSON.stringify([spotifyEntry(track!.artist, track!.title, Date.UTC(2020, 0, 1), 40_000)])
      const cases: ReadonlyArray<[string, Effect.Effect<RawResponse, never, HttpServer.HttpServer>]> = [
        ["not JSON", upload(hal, "hello, this is not an export", { source: "listenbrainz_export" })],
        ["empty", upload(hal, "", { source: "listenbrainz_export" })],
        [
          "cut short",
          upload(hal, '[{"listened_at": 1600000000, "track_metadata": {', { source: "listenbrainz_export" }),
        ],
        ["Spotify as ListenBrainz", upload(hal, spotify, { source: "listenbrainz_export" })],
        ["no source", upload(hal, spotify, {})],
        ["unknown source", upload(hal, spotify, { source: "napster" })],
        ["navidrome as a listener", upload(hal, spotify, { source: "navidrome_db" })],
        ["zip without history", upload(hal, makeZip({ "notes.txt": "hi" }), { source: "spotify_extended" })],
        [
          "not multipart",
          raw("POST", "/api/me/imports", { body: "x", headers: { "content-type": "text/plain" }, token: hal.token }),
        ],
        ["bad JSON pull", raw("POST", "/api/me/imports", { body: '{"source":"lastfm_api"}', token: hal.token })],
      ]
      for (const [name, request] of cases) {
        const response = yield* request
        expect([name, response.status]).toEqual([name, 400])
        expect((response.json as { error: { code: string } }).error.code).toBe("invalid_request")
      }
      // ?source= works as well as the form field.
      const viaQuery = yield* upload(hal, spotify, {}, { query: "?source=spotify_extended" })
      expect(viaQuery.status).toBe(202)
      const list = yield* hal.client.imports.list({ urlParams: {} })
      expect(list.items).toHaveLength(1)
    }),
  )

  it.effect("an upload over TONEARM_MAX_IMPORT_BYTES is 413 payload_too_large, declared or streamed", () =>
    Effect.gen(function* () {
      const ivy = yield* aUser("ivy")
      const big = JSON.stringify(
        Array.from({ length: 5_000 }, (_, i) => lbListen("Some Artist With A Long Name", `Title ${i}`, T0 + i)),
      )
      expect(big.length).toBeGreaterThan(MAX_IMPORT_BYTES)
      const declared = yield* upload(ivy, big, { source: "listenbrainz_export" })
      expect(declared.status).toBe(413)
      expect((declared.json as { error: { code: string } }).error.code).toBe("payload_too_large")
      // Without a declared length (chunked), the stream is cut at the limit.
      const url = yield* serverUrl
      const form = new FormData()
      form.set("source", "listenbrainz_export")
      form.set("file", new Blob([big]), "big.json")
      const body = new Response(form)
      const chunked = yield* Effect.promise(() =>
        fetch(`${url}/api/me/imports`, {
          method: "POST",
          headers: { authorization: `Bearer ${ivy.token}`, "content-type": body.headers.get("content-type")! },
          body: body.body,
          duplex: "half",
        } as RequestInit),
      )
      expect(chunked.status).toBe(413)
      // The rest of that body is never read: the connection closes, so no client sends its next request into it.
      expect(chunked.headers.get("connection")).toBe("close")
      // A body just under the limit is accepted: the limit is the import routes' own, not TONEARM_MAX_BODY_BYTES'.
      expect((yield* ivy.client.imports.list({ urlParams: {} })).items).toEqual([])
    }),
  )

  it.effect("export → import round trip adds nothing; the export is ListenBrainz JSON lines of every play", () =>
    Effect.gen(function* () {
      const jay = yield* aUser("jay")
      const tracks = (yield* libraryTracks).slice(0, 3)
      yield* finished(
        jay,
        yield* startImport(
          jay,
          JSON.stringify(tracks.map((track, i) => lbListen(track.artist, track.title, T0 + i * 900))),
          "listenbrainz_export",
        ),
      )
      // A live play too, with milliseconds: the export keeps seconds, the import's same-second rule still holds.
      yield* jay.client.plays.report({
        payload: {
          type: "play_offline",
          track_id: TrackId.make(tracks[0]!.id),
          client_id: "web",
          at: DateTime.unsafeMake(Date.UTC(2024, 0, 2, 3, 4, 5, 678)),
          duration_played_ms: 12_000,
        },
      })
      const before = yield* playsOf(jay.user.id)
      const exported = yield* raw("GET", "/api/me/plays/export", { token: jay.token })
      expect(exported.status).toBe(200)
      expect(exported.headers.get("content-type")).toContain("application/x-ndjson")
      const lines = exported.text.trimEnd().split("\n")
      expect(lines).toHaveLength(4)
      const first = JSON.parse(lines[0]!)
      expect(first).toMatchObject({
        listened_at: T0,
        track_metadata: {
          artist_name: tracks[0]!.artist,
          track_name: tracks[0]!.title,
          release_name: tracks[0]!.album,
          additional_info: { tonearm_track_id: tracks[0]!.id, duration_ms: tracks[0]!.duration_ms },
        },
      })
      const again = yield* finished(jay, yield* startImport(jay, exported.text, "listenbrainz_export"))
      expect(again).toMatchObject({ state: "done", total: 4, matched: 4, duplicates: 4, unmatched: 0 })
      expect(yield* playsOf(jay.user.id)).toEqual(before)
      // Another user's export holds only their own plays.
      const kim = yield* aUser("kim")
      expect((yield* raw("GET", "/api/me/plays/export", { token: kim.token })).text).toBe("")
    }),
  )

  it.scoped(
    "imported plays feed the stats and the taste profile; the mixes are rebuilt once, progress is streamed",
    () =>
      Effect.gen(function* () {
        const lea = yield* aUser("lea")
        const sql = yield* SqlClient.SqlClient
        const tracks = (yield* libraryTracks).slice(0, 8)
        const stream = yield* openSse(yield* serverUrl, lea.token)
        const now = Math.floor(Date.now() / 1000)
        const id = yield* startImport(
          lea,
          JSON.stringify(tracks.map((track, i) => lbListen(track.artist, track.title, now - 86_400 - i * 600))),
          "listenbrainz_export",
        )
        yield* finished(lea, id)
        const rebuilt = yield* stream.waitFor((frame) => frame.event === "playlist.system_rebuilt", 1, 60_000)
        expect(rebuilt).toHaveLength(1)
        const progress = stream.frames.filter((frame) => frame.event === "import.progress")
        expect((progress.at(-1)!.data as { data: unknown }).data).toEqual({
          import_id: id,
          state: "done",
          total: 8,
          matched: 8,
          unmatched: 0,
          duplicates: 0,
        })
        yield* Effect.sleep("1 second")
        expect(stream.frames.filter((frame) => frame.event === "playlist.system_rebuilt")).toHaveLength(1)
        // The taste profile was built from them.
        const [profile] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM taste_profiles WHERE user_id = ${lea.user.id}`
        expect(profile!.n).toBe(1)
        // Listening stats count them like any play.
        const stats = yield* lea.client.plays.stats({ urlParams: { period: "week" } })
        expect(stats.top_tracks.map((top) => top.track.id).sort()).toEqual(tracks.map((track) => track.id).sort())
        // A second import of the same file adds nothing and rebuilds nothing.
        yield* finished(
          lea,
          yield* startImport(
            lea,
            JSON.stringify(tracks.map((track, i) => lbListen(track.artist, track.title, now - 86_400 - i * 600))),
            "listenbrainz_export",
          ),
        )
        yield* Effect.sleep("1 second")
        expect(stream.frames.filter((frame) => frame.event === "playlist.system_rebuilt")).toHaveLength(1)
      }),
  )
})
