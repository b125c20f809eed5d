import { useSignal } from "@preact/signals"
import { api, errorMessage } from "./api.js"
import { session } from "./session.js"

/** Sign in with a name and password; the server sets the session cookie (HttpOnly) on this origin. */
export function SignIn() {
  const error = useSignal<string | undefined>(undefined)
  const busy = useSignal(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    busy.value = true
    error.value = undefined
    try {
      const result = await api((client) =>
        client.auth.login({
          payload: { username: String(data.get("username")), password: String(data.get("password")) },
        }),
      )
      session.value = { id: result.user.id, username: result.user.username, is_admin: result.user.is_admin }
    } catch (failure) {
      error.value = errorMessage(failure)
    } finally {
      busy.value = false
    }
  }
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Tonearm</h1>
      <form onSubmit={submit}>
        <label>
          Username
          <input name="username" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary" disabled={busy.value}>
          Sign in
        </button>
        <p role="alert" class="error">
          {error.value ?? ""}
        </p>
      </form>
      <p>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
    </main>
  )
}
