import { useSignal } from "@preact/signals"
import { useEffect } from "preact/hooks"
import { api, errorMessage, isApiError } from "../state/api.js"
import { session } from "../state/session.js"

/**
 * Sign in with a name and password; the server sets the session cookie (HttpOnly) on this origin. A new server
 * has no account yet: "Create an account" registers (the first account becomes the admin; later ones only while
 * the operator keeps registration open, else the server's refusal is shown). Behind a reverse proxy that signs
 * users in (TONEARM_PROXY_AUTH_HEADER), the server's sign-in options name the proxy's user: the page signs in as
 * them at once, or, after an explicit sign-out in this browser, offers a "Continue as …" button.
 */
export function SignIn() {
  const error = useSignal<string | undefined>(undefined)
  const busy = useSignal(false)
  const creating = useSignal(false)
  const provider = useSignal<string | undefined>(undefined)
  /** The user a trusted reverse proxy names for this browser, offered as a button after an explicit sign-out. */
  const proxied = useSignal<string | undefined>(undefined)
  const proxySignIn = () =>
    api((client) => client.auth.proxyLogin()).then((result) => {
      session.value = { id: result.user.id, username: result.user.username, is_admin: result.user.is_admin }
    })
  useEffect(() => {
    let live = true
    // The proxy's sign-in is asked only when the server says this request came through it (no refused call, no
    // console error), and on its own only when this browser did not just sign out.
    api((client) => client.auth.signInOptions())
      .then((options) => {
        if (!live) return
        if (options.oidc !== null) provider.value = options.oidc.name
        if (options.proxy === null) return
        if (options.proxy.automatic) return proxySignIn()
        proxied.value = options.proxy.username
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
      {proxied.value !== undefined && !creating.value ? (
        <p>
          <button
            type="button"
            class="button"
            disabled={busy.value}
            onClick={() => {
              busy.value = true
              error.value = undefined
              proxySignIn()
                .catch((failure) => {
                  error.value = errorMessage(failure)
                })
                .finally(() => {
                  busy.value = false
                })
            }}
          >
            Continue as {proxied.value}
          </button>
        </p>
      ) : null}
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
