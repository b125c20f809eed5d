import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { AV_TRANSPORT, soapAction, soapEnvelope, xmlElement } from "@tonearm/core"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { type RawResponse, raw } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"
import { type Gmediarender, makeLongTrack, startGmediarender, startRecordingProxy } from "./renderers.js"

/**
 * Casting to a real UPnP renderer: Debian's gmediarender (gmrender-resurrect) with audio to GStreamer's fakesink,
 * configured by description URL. A recording proxy in front of the server shows what the speaker fetched.
 */

const TITLE = `Rock & Roll <Live> "Take 2" it's`
const library = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cast-lib-"))
makeLongTrack(path.join(library, "Cast/Album/01 Long.mp3"), { title: TITLE, artist: "Tone & Co", album: "Casts" }, 60)
makeLongTrack(path.join(library, "Cast/Album/02 Short.mp3"), { title: "Short", artist: "Tone", album: "Casts" }, 4)
makeLongTrack(path.join(library, "Cast/Album/03 After.mp3"), { title: "After", artist: "Tone", album: "Casts" }, 30)

let speaker: Gmediarender
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>
let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>
let admin: SignedIn
let member: SignedIn
const ids: Record<string, string> = {}

// biome-ignore lint/suspicious/noExplicitAny: the runtime's context is the whole test server
const run = <A>(effect: Effect.Effect<A, any, any>) => runtime.runPromise(effect as Effect.Effect<A>)

const call = (method: string, route: string, token: string, body?: unknown): Promise<RawResponse> =>
  run(
    raw(method, route, {
      token,
      headers: { "x-forwarded-host": proxy.host },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  )

interface Status {
  state: string
  track_id: string | null
  position_ms: number | null
  volume: number | null
  next_track_id: string | null
}

/** Polls the status route until `check` holds (a speaker changes state a moment after it answers). */
const statusUntil = async (token: string, check: (status: Status) => boolean, what: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    const response = await call("GET", `/api/cast/renderers/${speaker.uuid}/status`, token)
    last = response.json
    if (response.status === 200 && check(response.json as Status)) return response.json as Status
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last status ${JSON.stringify(last)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const until = async <A>(check: () => A | undefined, what: string, timeoutMs = 10_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

beforeAll(async () => {
  speaker = await startGmediarender("Living Room & <Kitchen>")
  runtime = ManagedRuntime.make(
    TestServerLive({
      libraryDir: library,
      cast: { rendererUrls: [speaker.descriptionUrl], discovery: false, timeoutMs: 4000 },
    }),
  ) as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>
  const url = await run(serverUrl)
  proxy = await startRecordingProxy(url)
  admin = await run(signUpFirstAdmin("admin"))
  member = await run(createAndLogIn(admin.client, "member"))
  await run(scanNow())
  const rows = await run(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; path: string }>`SELECT id, path FROM tracks`),
  )
  for (const row of rows) ids[path.basename(row.path)] = row.id
}, 120_000)

afterAll(async () => {
  await speaker?.stop()
  await proxy?.stop()
  await runtime?.dispose()
})

describe("casting to gmediarender", () => {
  it("lists the configured renderer by its UPnP name to any signed-in user", async () => {
    const response = await call("GET", "/api/cast/renderers", member.token)
    expect(response.status).toBe(200)
    expect((response.json as { items: Array<unknown> }).items).toEqual([
      { id: speaker.uuid, name: "Living Room & <Kitchen>", source: "configured" },
    ])
  })

  it("plays a track from its signed stream URL: the speaker fetches stream?exp&token and reports PLAYING", async () => {
    const track = ids["01 Long.mp3"]!
    const played = await call("POST", `/api/cast/renderers/${speaker.uuid}/play`, admin.token, { track_id: track })
    expect(played.status, played.text).toBe(200)
    const status = await statusUntil(admin.token, (s) => s.state === "PLAYING", "PLAYING")
    expect(status.track_id).toBe(track)
    const fetched = await until(() => {
      const hits = proxy.requests.filter((request) => request.url.startsWith(`/api/tracks/${track}/stream.mp3?`))
      return hits.length > 0 ? hits : undefined
    }, "the speaker's stream request")
    const query = new URL(fetched[0]!.url, "http://x").searchParams
    expect(query.get("exp")).toMatch(/^\d+$/)
    expect(query.get("token")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(fetched.every((request) => request.status === 200 || request.status === 206)).toBe(true)
    // The speaker parsed the DIDL-Lite: it answers GetMediaInfo with the title's & < > " ' intact.
    const controlUrl = new URL("/upnp/control/rendertransport1", speaker.descriptionUrl).toString()
    const info = await fetch(controlUrl, {
      method: "POST",
      headers: { "content-type": 'text/xml; charset="utf-8"', soapaction: soapAction(AV_TRANSPORT, "GetMediaInfo") },
      body: soapEnvelope(AV_TRANSPORT, "GetMediaInfo", [["InstanceID", 0]]),
    }).then((response) => response.text())
    const didl = xmlElement(info, "CurrentURIMetaData") ?? ""
    expect(xmlElement(didl, "title")).toBe(TITLE)
    expect(xmlElement(didl, "artist")).toBe("Tone & Co")
    expect(didl).toContain('protocolInfo="http-get:*:audio/mpeg:*"')
  })

  it("pause, resume, seek, volume and stop drive the speaker, for another user too (a shared speaker)", async () => {
    const paused = await call("POST", `/api/cast/renderers/${speaker.uuid}/pause`, member.token)
    expect(paused.status, paused.text).toBe(200)
    await statusUntil(member.token, (s) => s.state === "PAUSED_PLAYBACK", "PAUSED_PLAYBACK")
    expect((await call("POST", `/api/cast/renderers/${speaker.uuid}/resume`, admin.token)).status).toBe(200)
    await statusUntil(admin.token, (s) => s.state === "PLAYING", "PLAYING again")
    const sought = await call("POST", `/api/cast/renderers/${speaker.uuid}/seek`, admin.token, { position_ms: 30_000 })
    expect(sought.status, sought.text).toBe(200)
    await statusUntil(admin.token, (s) => (s.position_ms ?? 0) >= 29_000, "the position after the seek")
    const volume = await call("POST", `/api/cast/renderers/${speaker.uuid}/volume`, admin.token, { volume: 30 })
    expect(volume.status, volume.text).toBe(200)
    expect((volume.json as Status).volume).toBe(30)
    expect((await call("POST", `/api/cast/renderers/${speaker.uuid}/stop`, admin.token)).status).toBe(200)
    await statusUntil(admin.token, (s) => s.state === "STOPPED", "STOPPED")
  })

  it("starts at position_ms, and the next track queued with SetNextAVTransportURI plays when the first ends", async () => {
    const short = ids["02 Short.mp3"]!
    const after = ids["03 After.mp3"]!
    const played = await call("POST", `/api/cast/renderers/${speaker.uuid}/play`, admin.token, {
      track_id: short,
      position_ms: 2_000,
      next_track_id: after,
    })
    expect(played.status, played.text).toBe(200)
    expect((played.json as Status).next_track_id).toBe(after)
    const started = await statusUntil(admin.token, (s) => s.track_id === short && s.state === "PLAYING", "PLAYING")
    expect(started.position_ms).toBeGreaterThanOrEqual(1_000)
    const moved = await statusUntil(admin.token, (s) => s.track_id === after && s.state === "PLAYING", "the next track")
    expect(moved.next_track_id).toBeNull()
    // The speaker reports the next track as its own once its player has switched, which can be before our answer's
    // headers reached the proxy on a loaded machine: wait for the fetch rather than read the record at once.
    const fetchedNext = await until(
      () =>
        proxy.requests.some((request) => request.url.startsWith(`/api/tracks/${after}/stream.mp3?exp=`)) || undefined,
      "the speaker's request for the next track",
    )
    expect(fetchedNext).toBe(true)
    await call("POST", `/api/cast/renderers/${speaker.uuid}/stop`, admin.token)
  })

  it("bad input is 4xx: an unknown renderer 404, a malformed track id 400, a missing track 404, no session 401", async () => {
    const unknown = await call("POST", "/api/cast/renderers/not-a-speaker/play", admin.token, {
      track_id: ids["01 Long.mp3"],
    })
    expect(unknown.status).toBe(404)
    expect((unknown.json as { error: { code: string } }).error.code).toBe("not_found")
    const malformed = await call("POST", `/api/cast/renderers/${speaker.uuid}/play`, admin.token, { track_id: "x" })
    expect(malformed.status).toBe(400)
    expect((malformed.json as { error: { code: string } }).error.code).toBe("invalid_track_id")
    const missing = await call("POST", `/api/cast/renderers/${speaker.uuid}/play`, admin.token, {
      track_id: "00000000-0000-4000-8000-000000000000",
    })
    expect(missing.status).toBe(404)
    const volume = await call("POST", `/api/cast/renderers/${speaker.uuid}/volume`, admin.token, { volume: 101 })
    expect(volume.status).toBe(400)
    const anonymous = await run(raw("GET", "/api/cast/renderers"))
    expect(anonymous.status).toBe(401)
  })
})
