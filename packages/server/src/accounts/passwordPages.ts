import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/**
 * The two account pages that must load without a session (spec Authentication 7): asking for a reset link,
 * and choosing a new password from one. Self-contained HTML that calls the JSON API; the token is read from
 * the address in the browser, never echoed into the markup.
 */
const page = (title: string, body: string, script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Tonearm</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}
input,button{font:inherit;width:100%;margin:.25rem 0 1rem;padding:.5rem;box-sizing:border-box}
#status{min-height:1.5rem}</style></head>
<body><h1>${title}</h1>${body}<p id="status" role="status"></p>
<script>
const status = (text) => { document.getElementById("status").textContent = text }
const post = (path, body) => fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  .then(async (response) => response.ok ? null : ((await response.json().catch(() => null))?.error?.message ?? "request failed"))
${script}
</script></body></html>`

const forgotPassword = page(
  "Reset your password",
  `<form id="form"><label>Username or email<input name="who" autocomplete="username" required></label>
<button>Send me a reset link</button></form>`,
  `document.getElementById("form").addEventListener("submit", async (event) => {
  event.preventDefault()
  const error = await post("/api/auth/forgot-password", { username_or_email: event.target.who.value })
  status(error ?? "If that account exists, a reset link is on its way.")
})`,
)

const resetPassword = page(
  "Choose a new password",
  `<form id="form"><label>New password (8 to 256 characters)<input name="password" type="password" autocomplete="new-password" minlength="8" maxlength="256" required></label>
<button>Set password</button></form>`,
  `document.getElementById("form").addEventListener("submit", async (event) => {
  event.preventDefault()
  const token = decodeURIComponent(location.pathname.split("/").pop() ?? "")
  const error = await post("/api/auth/reset-password", { token, password: event.target.password.value })
  status(error ?? "Password changed. Every session was signed out: sign in again with the new password.")
})`,
)

const html = (body: string) =>
  HttpServerResponse.html(body).pipe(
    HttpServerResponse.setHeaders({
      "cache-control": "no-store",
      "content-security-policy":
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
      "referrer-policy": "no-referrer",
    }),
  )

export const PASSWORD_PAGE_ROUTES = [
  { method: "GET", path: "/forgot-password" },
  { method: "GET", path: "/reset-password/:token" },
] as const

export const PasswordPagesLive = HttpApiBuilder.Router.use((router) =>
  Effect.all([
    router.get("/forgot-password", Effect.succeed(html(forgotPassword))),
    router.get("/reset-password/:token", Effect.succeed(html(resetPassword))),
  ]),
)
