import { useSignal } from "@preact/signals"
import { DateTime } from "effect"
import { asId } from "../../components/ids.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"

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
  const message = useSignal("")

  const generatePassword = async () => {
    try {
      appPassword.value = (await api((client) => client.subsonicCredentials.createSubsonicPassword())).password
      message.value = "New app password made. It replaces the previous one; copy it now, it is not shown again."
    } catch (error) {
      message.value = `Could not make an app password: ${errorMessage(error)}`
    }
  }
  const createKey = async (event: Event) => {
    event.preventDefault()
    try {
      const created = await api((client) =>
        client.subsonicCredentials.createApiKey({ payload: { name: keyName.value.trim() } }),
      )
      newKey.value = { name: created.name, key: created.key }
      keyName.value = ""
      message.value = `API key "${created.name}" created; copy it now, it is not shown again.`
    } catch (error) {
      message.value = `Could not create the key: ${errorMessage(error)}`
    }
    keys.reload()
  }
  const revoke = async (id: string, name: string) => {
    try {
      await api((client) => client.subsonicCredentials.revokeApiKey({ path: { id: asId(id) } }))
      message.value = `API key "${name}" revoked.`
    } catch (error) {
      message.value = `Could not revoke: ${errorMessage(error)}`
    }
    keys.reload()
  }
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
