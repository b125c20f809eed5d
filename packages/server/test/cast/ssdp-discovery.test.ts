import { type Effect, ManagedRuntime } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { type Gmediarender, startGmediarender } from "./renderers.js"

/** SSDP: with discovery on and nothing configured, gmediarender is found by M-SEARCH / NOTIFY alive, and forgotten on byebye. */

let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>
let admin: SignedIn
let speaker: Gmediarender | undefined

// biome-ignore lint/suspicious/noExplicitAny: the runtime's context is the whole test server
const run = <A>(effect: Effect.Effect<A, any, any>) => runtime.runPromise(effect as Effect.Effect<A>)

const listed = async () => {
  const response = await run(raw("GET", "/api/cast/renderers", { token: admin.token }))
  return (response.json as { items: Array<{ id: string; name: string; source: string }> }).items
}

const until = async <A>(check: () => Promise<A | undefined>, what: string, timeoutMs = 20_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

beforeAll(async () => {
  runtime = ManagedRuntime.make(
    TestServerLive({ cast: { rendererUrls: [], discovery: true, timeoutMs: 4000 } }),
  ) as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>
  admin = await run(signUpFirstAdmin("admin"))
}, 60_000)

afterAll(async () => {
  await speaker?.stop()
  await runtime?.dispose()
})

it("SSDP finds a MediaRenderer that announces itself, and forgets it when it says byebye", async () => {
  // Started after the server: its NOTIFY alive (multicast) reaches the server's SSDP socket.
  speaker = await startGmediarender("Discovered Speaker")
  const uuid = speaker.uuid
  const found = await until(async () => (await listed()).find((item) => item.id === uuid), "the SSDP announcement")
  expect(found).toEqual({ id: uuid, name: "Discovered Speaker", source: "discovered" })
  const status = await run(raw("GET", `/api/cast/renderers/${uuid}/status`, { token: admin.token }))
  expect(status.status).toBe(200)
  expect((status.json as { state: string }).state).toBe("STOPPED")
  await speaker.stop()
  speaker = undefined
  await until(async () => ((await listed()).some((item) => item.id === uuid) ? undefined : true), "the byebye")
}, 60_000)
