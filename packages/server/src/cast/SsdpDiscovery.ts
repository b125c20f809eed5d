import * as dgram from "node:dgram"
import { deviceUuid, isRendererMessage, mSearch, parseSsdp, SSDP_ADDRESS, SSDP_PORT } from "@tonearm/core"
import { Effect, Runtime, Schedule } from "effect"

/** What discovery reports: a renderer announced at a description URL, or one saying goodbye. */
export interface SsdpListener {
  readonly found: (descriptionUrl: string) => Effect.Effect<void>
  readonly gone: (uuid: string) => Effect.Effect<void>
}

/** How often the M-SEARCH goes out again (renderers also announce themselves with NOTIFY alive). */
const SEARCH_EVERY = "60 seconds"

/**
 * SSDP on UDP 1900: one socket joined to the multicast group hears NOTIFY alive/byebye, and answers to the
 * M-SEARCH it sends. A LOCATION is followed only when it names the very host the packet came from, so a forged
 * packet cannot point the server at another machine. Runs until the scope closes; a socket that cannot bind
 * (port taken without SO_REUSEADDR, no multicast route) logs once and leaves configured renderers working.
 */
export const runSsdpDiscovery = (listener: SsdpListener) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runFork(runtime)
    const socket = yield* Effect.acquireRelease(
      Effect.async<dgram.Socket, Error>((resume) => {
        const created = dgram.createSocket({ type: "udp4", reuseAddr: true })
        created.once("error", (error) => resume(Effect.fail(error)))
        created.bind(SSDP_PORT, () => {
          try {
            created.addMembership(SSDP_ADDRESS)
          } catch {
            // No multicast route: answers to our M-SEARCH still arrive on the bound port.
          }
          resume(Effect.succeed(created))
        })
      }),
      (socket) => Effect.sync(() => socket.close()),
    )
    socket.on("error", (error) => run(Effect.logWarning("SSDP socket error", error)))
    socket.on("message", (packet, from) => {
      const message = parseSsdp(packet.toString("utf8"))
      if (!isRendererMessage(message)) return
      if (message.type === "byebye") {
        const usn = message.headers.usn
        if (usn !== undefined) run(listener.gone(deviceUuid(usn)))
        return
      }
      if (message.type !== "alive" && message.type !== "response") return
      const location = message.headers.location
      if (location === undefined || !URL.canParse(location)) return
      const url = new URL(location)
      if (url.hostname !== from.address || !/^https?:$/.test(url.protocol)) return
      run(listener.found(url.toString()))
    })
    const search = Buffer.from(mSearch())
    yield* Effect.async<void>((resume) => {
      socket.send(search, SSDP_PORT, SSDP_ADDRESS, () => resume(Effect.void))
    }).pipe(Effect.repeat(Schedule.spaced(SEARCH_EVERY)))
  }).pipe(
    Effect.scoped,
    Effect.catchAll((error) => Effect.logWarning(`SSDP discovery is off: ${error.message}`)),
  )
