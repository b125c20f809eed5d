import { EventEnvelope } from "@tonearm/core"
import { Either, Schema } from "effect"

export type { EventEnvelope } from "@tonearm/core"

/** One parsed server-sent frame: a comment (`: connected`, `: heartbeat`) or an event with its envelope. */
export type SseFrame =
  | { readonly type: "comment"; readonly text: string }
  | { readonly type: "event"; readonly event: string; readonly data: string }

/**
 * Splits a growing SSE text buffer into complete frames (a blank line ends one) and the unfinished rest.
 * Pure, so the browser and Node read the stream the same way.
 */
export const parseSseFrames = (buffer: string): { readonly frames: ReadonlyArray<SseFrame>; readonly rest: string } => {
  const frames: Array<SseFrame> = []
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n")
  const rest = blocks.pop() ?? ""
  for (const block of blocks) {
    if (block.trim() === "") continue
    let event = "message"
    const data: Array<string> = []
    let comment: string | undefined
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comment = line.slice(1).trim()
      else if (line.startsWith("event:")) event = line.slice(6).trim()
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
    }
    if (data.length > 0) frames.push({ type: "event", event, data: data.join("\n") })
    else if (comment !== undefined) frames.push({ type: "comment", text: comment })
  }
  return { frames, rest }
}

const decodeEnvelope = Schema.decodeUnknownEither(Schema.parseJson(EventEnvelope))

export interface EventStreamOptions {
  /** e.g. `http://localhost:4533`; empty or omitted = same origin (the web player). */
  readonly baseUrl?: string
  /** Bearer token for scripts; browsers send their session cookie themselves. */
  readonly token?: string
  readonly onEvent: (event: EventEnvelope) => void
  /** Called on each (re)connection: nothing is persisted server-side, so a client refetches what it shows. */
  readonly onOpen?: () => void
  /** Called when the connection drops; the helper reconnects after `retryMs` (default 3 s). */
  readonly onError?: (error: unknown) => void
  readonly retryMs?: number
  readonly fetch?: typeof globalThis.fetch
}

/**
 * Follows `GET /api/events/stream` (spec "Event stream") until the returned function is called, reconnecting
 * after a drop. Uses fetch rather than EventSource so a bearer token can be sent and Node can use it too.
 * Events whose envelope does not decode are ignored.
 */
export const subscribeEvents = (options: EventStreamOptions): (() => void) => {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  const retryMs = options.retryMs ?? 3_000
  let controller: AbortController | undefined
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined

  const connect = async () => {
    controller = new AbortController()
    try {
      const response = await doFetch(`${options.baseUrl ?? ""}/api/events/stream`, {
        headers: {
          accept: "text/event-stream",
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        },
        credentials: "same-origin",
        signal: controller.signal,
      })
      if (!response.ok || response.body === null) throw new Error(`event stream answered ${response.status}`)
      options.onOpen?.()
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      let buffer = ""
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        const parsed = parseSseFrames(buffer)
        buffer = parsed.rest
        for (const frame of parsed.frames) {
          if (frame.type !== "event") continue
          const envelope = decodeEnvelope(frame.data)
          if (Either.isRight(envelope)) options.onEvent(envelope.right)
        }
      }
      throw new Error("event stream closed")
    } catch (error) {
      if (stopped) return
      options.onError?.(error)
      timer = setTimeout(connect, retryMs)
    }
  }
  void connect()
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
    controller?.abort()
  }
}

/** Transcoding options of the stream route: `format` (mp3, opus, raw) and `timeOffset` (seconds). */
export interface StreamUrlOptions {
  readonly format?: "mp3" | "opus" | "raw"
  readonly timeOffset?: number
}

/** The audio address of a track (`GET /api/tracks/{id}/stream`; the session cookie or a token authorises it). */
export const trackStreamUrl = (trackId: string, baseUrl = "", options: StreamUrlOptions = {}) => {
  const query = new URLSearchParams()
  if (options.format !== undefined) query.set("format", options.format)
  if (options.timeOffset !== undefined && options.timeOffset > 0) query.set("timeOffset", String(options.timeOffset))
  const search = query.toString()
  return `${baseUrl}/api/tracks/${encodeURIComponent(trackId)}/stream${search === "" ? "" : `?${search}`}`
}
