import { useSignal } from "@preact/signals"
import { DateTime } from "effect"
import { asId } from "../../components/ids.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const when = (value: DateTime.Utc | null) => (value === null ? "never" : DateTime.toDate(value).toLocaleString())

/**
 * Credentials for Subsonic apps (DSub, Symfonium, Feishin, …): an app password for token sign-in, shown once, and
 * OpenSubsonic API keys, each shown once, listed by name and revocable.
 */
export default function SubsonicPage() {
  const keys = useLoad((signal) => api((client) => client.subsonicCredentials.listApiKeys(), signal), [])
  const appPassword = useSignal<string | null>(null)
  const newKey = useSignal<{ name: string; key: string } | null>(null)
  const keyName = useSignal("")
  const { message, run } = useAction(keys.reload)

  const generatePassword = () =>
    run(() => api((client) => client.subsonicCredentials.createSubsonicPassword()), {
      done: (made) => {
        appPassword.value = made.password
        return "New app password made. It replaces the previous one; copy it now, it is not shown again."
      },
      failed: "Could not make an app password",
    })
  const createKey = (event: Event) => {
    event.preventDefault()
    return run(
      () => api((client) => client.subsonicCredentials.createApiKey({ payload: { name: keyName.value.trim() } })),
      {
        done: (created) => {
          newKey.value = { name: created.name, key: created.key }
          keyName.value = ""
          return `API key "${created.name}" created; copy it now, it is not shown again.`
        },
        failed: "Could not create the key",
      },
    )
  }
  const revoke = (id: string, name: string) =>
    run(() => api((client) => client.subsonicCredentials.revokeApiKey({ path: { id: asId(id) } })), {
      done: `API key "${name}" revoked.`,
      failed: "Could not revoke",
    })
  return (
    <section>
      <h1>Subsonic apps</h1>
      <p>
        Connect a Subsonic app with this server's address (<code>{location.origin}</code>), your username and an app
        password.
      </p>
      <p role="status">{message.value}</p>
      <h2>App password</h2>
      <p>
        <button type="button" onClick={() => void generatePassword()}>
          Generate app password
        </button>
      </p>
      {appPassword.value !== null && (
        <p>
          <label>
            App password (shown once){" "}
            <input type="text" readOnly value={appPassword.value} data-testid="app-password" size={32} />
          </label>
        </p>
      )}
      <h2>API keys</h2>
      <form onSubmit={(event) => void createKey(event)}>
        <label>
          Key name{" "}
          <input
            type="text"
            required
            maxLength={100}
            value={keyName.value}
            onInput={(event) => {
              keyName.value = (event.target as HTMLInputElement).value
            }}
          />
        </label>{" "}
        <button type="submit">Create API key</button>
      </form>
      {newKey.value !== null && (
        <p>
          <label>
            Key for {newKey.value.name} (shown once){" "}
            <input type="text" readOnly value={newKey.value.key} data-testid="api-key" size={48} />
          </label>
        </p>
      )}
      <Status loaded={keys} />
      {keys.data !== undefined &&
        (keys.data.length === 0 ? (
          <p class="muted">No API keys yet.</p>
        ) : (
          <table class="plain">
            <caption class="muted">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((row) => (
                <tr key={row.id} data-key-id={row.id}>
                  <td>{row.name}</td>
                  <td>{when(row.created_at)}</td>
                  <td>{when(row.last_used_at)}</td>
                  <td>
                    <button
                      type="button"
                      class="danger"
                      onClick={() => void revoke(row.id, row.name)}
                      aria-label={`Revoke API key ${row.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  )
}
