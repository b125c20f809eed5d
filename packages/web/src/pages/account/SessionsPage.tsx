import { DateTime } from "effect"
import { plural } from "../../components/format.js"
import { asId } from "../../components/ids.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const when = (value: DateTime.Utc) => DateTime.toDate(value).toLocaleString()

/** The user's sessions, the current one marked; revoke one, or sign out every other. */
export default function SessionsPage() {
  const sessions = useLoad((signal) => api((client) => client.me.listSessions(), signal), [])
  const { message, run } = useAction(sessions.reload)
  const revoke = (id: string) =>
    run(() => api((client) => client.me.deleteSession({ path: { id: asId(id) } })), {
      done: "Session revoked.",
      failed: "Could not revoke",
    })
  const logoutOthers = () =>
    run(() => api((client) => client.me.logoutOthers()), {
      done: (result) => `Signed out ${plural(result.revoked, "other session")}.`,
      failed: "Could not sign out the others",
    })
  return (
    <section>
      <h1>Sessions</h1>
      <p>
        <button type="button" onClick={() => void logoutOthers()}>
          Sign out all other sessions
        </button>
      </p>
      <p role="status">{message.value}</p>
      <Status loaded={sessions} />
      {sessions.data !== undefined && (
        <table class="plain">
          <caption class="muted">Where you are signed in</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((row) => (
              <tr key={row.id} data-session-id={row.id} aria-current={row.current ? "true" : undefined}>
                <td>
                  {row.user_agent || "Unknown device"}
                  {row.current && <strong class="badge"> (this session)</strong>}
                </td>
                <td>{row.last_ip || row.created_ip}</td>
                <td>{when(row.created_at)}</td>
                <td>{when(row.last_seen_at)}</td>
                <td>
                  {!row.current && (
                    <button
                      type="button"
                      class="danger"
                      onClick={() => void revoke(row.id)}
                      aria-label={`Revoke session on ${row.user_agent || "unknown device"}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
