import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  bodyOf,
  fakeLastfm,
  fakeListenBrainz,
  GOOD_LASTFM_TOKEN,
  LASTFM_SESSION,
  scrobbleSettings,
  tokenOf,
} from "../../../server/test/scrobbling/support.js"
import { type FakeServer, startFakeServer } from "../../../server/test/support/fakeServer.js"
import {
  adminCall,
  DESKTOP,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newListener,
  openAt,
  PASSWORD,
  PHONE,
  type ScreenSize,
  screenshot,
  signedInPage,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Issue 26 item 4 in the browser: a listener pastes a ListenBrainz token and sees their plays sent, and connects
 * Last.fm through its auth page (a fake that sends them straight back with a token), at phone and desktop sizes.
 */
let server: WebServer
let browser: Browser
let listenbrainz: FakeServer
let lastfm: FakeServer
let tracks: ReadonlyArray<{ readonly id: string }>

beforeAll(async () => {
  listenbrainz = await startFakeServer(fakeListenBrainz)
  lastfm = await startFakeServer((fake) => {
    fakeLastfm(fake)
    // Last.fm's "allow this application" page, already answered yes: back to the callback with a token.
    fake.on("GET", "/api/auth/", (request) => {
      const callback = request.query.get("cb") ?? ""
      return {
        status: 302,
        headers: { location: `${callback}${callback.includes("?") ? "&" : "?"}token=${GOOD_LASTFM_TOKEN}` },
      }
    })
  })
  server = await startServer(
    scrobbleSettings(
      { listenbrainz: listenbrainz.url, lastfm: lastfm.url },
      { lastfmAuthUrl: `${lastfm.url}/api/auth/` },
    ),
  )
  browser = await launchBrowser()
  tracks = (await adminCall<{ tracks: ReadonlyArray<{ id: string }> }>(server, "GET", "/api/library/shuffle?limit=10"))
    .tracks
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await listenbrainz?.stop()
  await lastfm?.stop()
})

/** A listener of their own, signed in on a page of the given size. */
const listener = async (name: string, size: ScreenSize) => {
  await newListener(server, name)
  const login = await fetch(`${server.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: name, password: PASSWORD }),
  })
  const { token } = (await login.json()) as { token: string }
  const context = await browser.newContext(size)
  const { page, errors } = await signedInPage(server, context, name)
  return { page, errors, token, context }
}

/** A complete play reported for the listener (as their player would at its end). */
const completePlay = (bearer: string, trackId: string) =>
  fetch(`${server.url}/api/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({
      type: "play_offline",
      track_id: trackId,
      client_id: "e2e",
      at: new Date().toISOString(),
      duration_played_ms: 3_600_000,
    }),
  }).then((response) => expect(response.status).toBe(201))

const flow = async (label: "phone" | "desktop", size: ScreenSize) => {
  const { page, errors, token: bearer, context } = await listener(`scrobbler-${label}`, size)
  const lbToken = `e2e-listenbrainz-token-${label}-0123456789`
  await openAt(page, `${server.url}/settings/scrobbling`, "Scrobbling").catch(async (failure: unknown) => {
    await screenshot(page, `failed-scrobbling-${label}`)
    throw new Error(`${String(failure)}; page errors: ${errors.join("; ")}`)
  })
  await expectNoSeriousA11yViolations(page, `scrobbling (${label}, empty)`)
  const toggle = page.getByRole("checkbox", { name: "Send my plays to ListenBrainz" })
  expect(await toggle.isDisabled()).toBe(true)

  // ListenBrainz: paste the token; sending starts; the token is never shown back.
  await page.getByRole("textbox", { name: "User token" }).fill(lbToken)
  await page.getByRole("button", { name: "Save token" }).click()
  await page.getByText("ListenBrainz token saved").waitFor()
  // The line shows when the save answers; the toggle follows with the reload of the settings.
  await eventually(async () => (await toggle.isChecked()) || undefined, 10_000, "the ListenBrainz toggle on")
  expect(await page.content()).not.toContain(lbToken)
  expect(await page.getByRole("textbox", { name: "User token" }).getAttribute("placeholder")).toContain(
    `…${lbToken.slice(-4)}`,
  )

  await completePlay(bearer, tracks[label === "phone" ? 0 : 1]!.id)
  await eventually(
    async () =>
      listenbrainz
        .hits("/1/submit-listens")
        .some((hit) => tokenOf(hit) === lbToken && bodyOf(hit).listen_type === "single") || undefined,
    15_000,
    "the listen at the fake ListenBrainz",
  )
  await eventually(
    async () => {
      await page.getByRole("button", { name: "Refresh status" }).click()
      return (await page.getByTestId("listenbrainz-sent").textContent()) === "1" || undefined
    },
    15_000,
    "the sent count on the page",
  )
  expect(await page.getByTestId("listenbrainz-queued").textContent()).toBe("0")

  // Last.fm: the connect link goes to Last.fm's page, which comes back here with a token traded for a session.
  const connect = page.getByTestId("lastfm-connect")
  const href = (await connect.getAttribute("href")) ?? ""
  expect(href).toContain(`${lastfm.url}/api/auth/?api_key=`)
  expect(decodeURIComponent(href)).toContain(`cb=${server.url}/settings/scrobbling`)
  await connect.click()
  await page.getByText(`Last.fm connected as ${LASTFM_SESSION.name}`).waitFor()
  expect(new URL(page.url()).search).toBe("")
  const lastfmToggle = page.getByRole("checkbox", { name: "Send my plays to Last.fm" })
  await eventually(async () => (await lastfmToggle.isChecked()) || undefined, 10_000, "the Last.fm toggle on")
  await page.getByText(`Connected as ${LASTFM_SESSION.name}.`).waitFor()
  expect(await page.content()).not.toContain(LASTFM_SESSION.key)

  await expectNoSeriousA11yViolations(page, `scrobbling (${label})`)
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBeLessThanOrEqual(0)
  await screenshot(page, `scrobbling-${label}`)

  // Switching ListenBrainz off says so and stays off after a reload.
  await page.getByRole("checkbox", { name: "Send my plays to ListenBrainz" }).click()
  await page.getByText("ListenBrainz is off.").waitFor()
  await page.reload()
  await page.getByRole("heading", { name: "Scrobbling", level: 1 }).waitFor()
  await page.getByTestId("listenbrainz-status").waitFor()
  expect(await page.getByRole("checkbox", { name: "Send my plays to ListenBrainz" }).isChecked()).toBe(false)
  expect(errors).toEqual([])
  await context.close()
}

describe("Scrobbling settings", () => {
  it("on a phone (390×844, touch): paste a ListenBrainz token, see plays sent, connect Last.fm", async () => {
    await flow("phone", PHONE)
  }, 120_000)

  it("on a desktop (1440×900): the same", async () => {
    await flow("desktop", DESKTOP)
  }, 120_000)
})
