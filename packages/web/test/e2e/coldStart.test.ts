import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { arrangePlays, libraryTracks } from "../../../server/test/support/listening.js"
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  newListener,
  openAt,
  rebuildNow,
  SIZES,
  screenshot,
  signedInPage,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Cold start (issue 28 item 4): a listener with only a few plays (before the cold-start gate) gets a For You
 * built from their first plays and the library, labelled a starter mix under the title, at phone and desktop.
 */
let server: WebServer
let browser: Browser

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  const user = await newListener(server, "newcomer")
  const tracks = await server.run(libraryTracks)
  await server.run(
    arrangePlays((user as { user: { id: string } }).user.id, tracks.slice(0, 3), { times: 1, daysAgo: 1 }),
  )
  await rebuildNow(server, "newcomer")
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("For You before the cold-start gate", () => {
  for (const [name, size] of SIZES) {
    it(`${name}: For You has tracks and says it is a starter mix; no horizontal scroll; axe`, async () => {
      // axe is injected as a script, which the server's Content-Security-Policy would refuse
      const context = await browser.newContext(size)
      const { page, errors } = await signedInPage(server, context, "newcomer")
      await openAt(page, `${server.url}/for-you`, "For You")
      const label = page.locator(".system-mix[data-variant=for_you] .mix-description")
      await label.waitFor()
      expect(await label.textContent()).toContain("Starter mix")
      await page.getByRole("button", { name: "Play For You" }).waitFor()
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await expectNoSeriousA11yViolations(page, `for you starter ${name}`)
      await screenshot(page, `for-you-starter-${name}`)
      expect(errors).toEqual([])
      await context.close()
    })
  }
})
