import { Effect, type Scope } from "effect"

export interface SseFrame {
  /** `comment` for `: …` lines, else the event kind. */
  readonly type: "comment" | "event"
  readonly text: string
  readonly event?: string
  readonly data?: unknown
  readonly receivedAt: number
}

export interface SseConnection {
  readonly status: number
  readonly headers: { get(name: string): string | null }
  readonly frames: ReadonlyArray<SseFrame>
  /** Whether the server ended the stream. */
  readonly ended: () => boolean
  readonly waitFor: (
    predicate: (frame: SseFrame) => boolean,
    count?: number,
    timeoutMs?: number,
  ) => Effect.Effect<ReadonlyArray<SseFrame>>
}

/**
 * An SSE connection to the server under test, read frame by frame. The connection closes with the scope.
 * `stall` opens it but never reads, to play a slow subscriber.
 */
export const openSse = (
  url: string,
  token: string,
  options: { readonly stall?: boolean } = {},
): Effect.Effect<SseConnection, never, Scope.Scope> =>
  Effect.gen(function* () {
    const controller = new AbortController()
    yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
    const response = yield* Effect.promise(() =>
      fetch(`${url}/api/events/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal }),
    )
    const frames: Array<SseFrame> = []
    let ended = false
    const waiters: Array<() => void> = []
    if (!options.stall && response.body !== null) {
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      let buffer = ""
      void (async () => {
        try {
          while (true) {
            const { done, value } = await reader.read()
            if (done) {
              ended = true
              return
            }
            buffer += decoder.decode(value, { stream: true })
            let end = buffer.indexOf("\n\n")
            while (end >= 0) {
              const block = buffer.slice(0, end)
              buffer = buffer.slice(end + 2)
              const receivedAt = performance.now()
              if (block.startsWith(":")) frames.push({ type: "comment", text: block.slice(1).trim(), receivedAt })
              else {
                const event = /^event: (.*)$/m.exec(block)?.[1]
                const data = /^data: (.*)$/m.exec(block)?.[1]
                frames.push({
                  type: "event",
                  text: block,
                  event,
                  data: data ? JSON.parse(data) : undefined,
                  receivedAt,
                })
              }
              for (const wake of waiters.splice(0)) wake()
              end = buffer.indexOf("\n\n")
            }
          }
        } catch {
          // aborted
        }
      })()
    }
    /** Waits until `count` frames match, or fails after `timeoutMs`. */
    const waitFor = (predicate: (frame: SseFrame) => boolean, count = 1, timeoutMs = 5_000) =>
      Effect.promise(
        () =>
          new Promise<ReadonlyArray<SseFrame>>((resolve, reject) => {
            const check = () => {
              const matching = frames.filter(predicate)
              if (matching.length >= count) {
                clearTimeout(timer)
                resolve(matching)
                return true
              }
              return false
            }
            const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} frame(s)`)), timeoutMs)
            if (!check()) {
              const wait = () => {
                if (!check()) waiters.push(wait)
              }
              waiters.push(wait)
            }
          }),
      )
    return { status: response.status, headers: response.headers, frames, ended: () => ended, waitFor }
  })
