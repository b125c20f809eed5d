import { useSignal } from "@preact/signals"
import { useEffect } from "preact/hooks"
import { api, errorMessage, isApiError } from "../state/api.js"
import { session } from "../state/session.js"

/**
 * Sign in with a name and password; the server sets the session cookie (HttpOnly) on this origin. A new server
 * has no account yet: "Create an account" registers (the first account becomes the admin; later ones only while
 * the operator keeps registration open, else the server's refusal is shown). Behind a reverse proxy that signs
 * users in (TONEARM_PROXY_AUTH_HEADER), the page first asks the server to take the proxy's word; a refusal (the
 * feature is off, or the request did not come through the proxy) leaves the form.
 */
export function SignIn() {
  const error = useSignal<string | undefined>(undefined)
  const busy = useSignal(false)
  const creating = useSignal(false)
  const provider = useSignal<string | undefined>(undefined)
  useEffect(() => {
    let live = true
    api((client) => client.auth.signInOptions())
      .then((options) => {
        if (live && options.oidc !== null) provider.value = options.oidc.name
      })
      .catch(() => undefined)
    api((client) => client.auth.proxyLogin())
      .then((result) => {
        if (live) session.value = { id: result.user.id, username: result.user.username, is_admin: result.user.is_admin }
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [])
  const submit = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const username = String(data.get("username"))
    const password = String(data.get("password"))
    busy.value = true
    error.value = undefined
    try {
      const result = creating.value
        ? await api((client) => client.auth.register({ payload: { username, password } }))
        : await api((client) => client.auth.login({ payload: { username, password } }))
      session.value = { id: result.user.id, username: result.user.username, is_admin: result.user.is_admin }
    } catch (failure) {
      error.value =
        isApiError(failure) && failure._tag === "RegistrationClosed"
          ? "Registration is closed on this server: ask its admin for an account."
          : errorMessage(failure)
    } finally {
      busy.value = false
    }
  }
  const title = creating.value ? "Create a Tonearm account" : "Sign in to Tonearm"
  return (
    <main id="main" class="sign-in">
      <h1>{title}</h1>
      <form onSubmit={submit}>
        <label>
          Username
          <input name="username" autocomplete="username" required />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete={creating.value ? "new-password" : "current-password"}
            minLength={creating.value ? 8 : undefined}
            required
          />
        </label>
        <button type="submit" class="primary" disabled={busy.value}>
          {creating.value ? "Create account" : "Sign in"}
        </button>
        <p role="alert" class="error">
          {error.value ?? ""}
        </p>
      </form>
      {provider.value !== undefined && !creating.value ? (
        <p>
          {/* A full page load: the provider's pages, then its redirect back, set the session cookie. */}
          <a class="button" href="/api/auth/oidc/start">
            Sign in with {provider.value}
          </a>
        </p>
      ) : null}
      <p>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
      <p>
        <button
          type="button"
          class="link"
          onClick={() => {
            creating.value = !creating.value
            error.value = undefined
          }}
        >
          {creating.value ? "I have an account: sign in" : "New here? Create an account"}
        </button>
      </p>
    </main>
  )
}
