import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { type EventEnvelope, parseSseFrames, subscribeEvents, trackStreamUrl } from "../src/index.js"

describe("the SDK's event-stream helper", () => {
  it("splits SSE text into comment and event frames, keeping an unfinished frame for later", () => {
    const { frames, rest } = parseSseFrames(
      ': connected\n\nevent: track.liked\ndata: {"kind":"track.liked"}\n\n: heartbeat\r\n\r\nevent: playlist.upd',
    )
    expect(frames).toEqual([
      { type: "comment", text: "connected" },
      { type: "event", event: "track.liked", data: '{"kind":"track.liked"}' },
      { type: "comment", text: "heartbeat" },
    ])
    expect(rest).toBe("event: playlist.upd")
  })

  it("follows a stream (bearer token sent), decodes envelopes, skips ones that do not decode, and reconnects", async () => {
    let connections = 0
    const authorizations: Array<string | undefined> = []
    const server = createServer((request, response) => {
      connections++
      authorizations.push(request.headers.authorization)
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.write(": connected\n\n")
      response.write('event: nonsense\ndata: {"kind":"not.a.kind","user_id":"","data":{}}\n\n')
      response.write('event: track.liked\ndata: {"kind":"track.liked","user_id":"u1",')
      // The first connection drops after one event; the client reconnects.
      setTimeout(() => response.end(connections === 1 ? '"data":{"id":"t1"}}\n\n' : '"data":{"id":"t2"}}\n\n'), 20)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const events: Array<EventEnvelope> = []
    let opened = 0
    const stop = subscribeEvents({
      baseUrl,
      token: "secret",
      retryMs: 50,
      onEvent: (event) => events.push(event),
      onOpen: () => opened++,
    })
    const deadline = Date.now() + 5000
    while (events.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    stop()
    server.close()
    expect(events.map((event) => [event.kind, event.data.id])).toEqual([
      ["track.liked", "t1"],
      ["track.liked", "t2"],
    ])
    expect(opened).toBeGreaterThanOrEqual(2)
    expect(authorizations[0]).toBe("Bearer secret")
  })

  it("builds a track's stream address", () => {
    expect(trackStreamUrl("abc")).toBe("/api/tracks/abc/stream")
    expect(trackStreamUrl("abc", "http://h:1")).toBe("http://h:1/api/tracks/abc/stream")
    expect(trackStreamUrl("abc", "", { format: "opus" })).toBe("/api/tracks/abc/stream?format=opus")
    expect(trackStreamUrl("abc", "", { format: "mp3", timeOffset: 12.5 })).toBe(
      "/api/tracks/abc/stream?format=mp3&timeOffset=12.5",
    )
  })
})
