import { useSignal } from "@preact/signals"
import { DIAGNOSTIC_KINDS, type DiagnosticEvent, type DiagnosticsQuery } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural, when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"

const PAGE = 200

interface Filters {
  readonly user: string
  readonly device: string
  readonly kind: string
  readonly from: string
  readonly to: string
}
const NO_FILTERS: Filters = { user: "", device: "", kind: "", from: "", to: "" }

/** The timeline's query from the form (datetime-local fields are local times). */
const queryOf = (filters: Filters): DiagnosticsQuery => ({
  limit: PAGE,
  ...(filters.user === "" ? {} : { user_id: filters.user as never }),
  ...(filters.device.trim() === "" ? {} : { device_id: filters.device.trim() }),
  ...(filters.kind === "" ? {} : { kind: filters.kind }),
  ...(filters.from === "" ? {} : { from: new Date(filters.from) }),
  ...(filters.to === "" ? {} : { to: new Date(filters.to) }),
})

/**
 * Admin: device diagnostics that clients in debug mode sent. The device overview, then the timeline (oldest
 * first) filtered by account, device, kind and time window, a page at a time. Debug mode is switched per user
 * on the Users page; `tonearm diagnostics export` writes the same timeline to a file.
 */
function Diagnostics() {
  const users = useLoad((signal) => api((client) => client.adminUsers.list(), signal), [])
  const devices = useLoad((signal) => api((client) => client.adminDiagnostics.devices(), signal), [])
  const filters = useSignal<Filters>(NO_FILTERS)
  const events = useSignal<ReadonlyArray<DiagnosticEvent>>([])
  const cursor = useSignal<string | null>(null)
  const message = useSignal("")
  const loading = useSignal(false)

  const load = async (from: Filters, after: string | null) => {
    loading.value = true
    message.value = ""
    try {
      const page = await api((client) =>
        client.adminDiagnostics.timeline({
          urlParams: after === null ? queryOf(from) : { ...queryOf(from), cursor: after },
        }),
      )
      events.value = after === null ? page.items : [...events.value, ...page.items]
      cursor.value = page.cursor
    } catch (failure) {
      message.value = errorMessage(failure)
    } finally {
      loading.value = false
    }
  }
  useEffect(() => void load(NO_FILTERS, null), [])

  const apply = (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const text = (name: string) => String(data.get(name) ?? "")
    filters.value = {
      user: text("user"),
      device: text("device"),
      kind: text("kind"),
      from: text("from"),
      to: text("to"),
    }
    void load(filters.value, null)
  }

  return (
    <section>
      <h1>Diagnostics</h1>
      <p class="muted">Events from devices whose user has debug mode on (switch it on the Users page); kept 30 days.</p>
      <h2>Devices</h2>
      <Status loaded={devices} />
      {devices.data !== undefined &&
        (devices.data.length === 0 ? (
          <p class="muted">No device has sent diagnostics.</p>
        ) : (
          <TableScroll label="Devices table">
            <table class="data-table" aria-label="Devices">
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">User</th>
                  <th scope="col">Debug mode</th>
                  <th scope="col">Events</th>
                  <th scope="col">By kind</th>
                  <th scope="col">Last kind</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {devices.data.map((device) => (
                  <tr key={`${device.user_id}|${device.device_id}`}>
                    <th scope="row">
                      <code>{device.device_id}</code>
                    </th>
                    <td>{device.username}</td>
                    <td>{device.debug_mode_enabled ? "On" : "Off"}</td>
                    <td>{device.events}</td>
                    <td>
                      {Object.entries(device.kinds)
                        .map(([kind, n]) => `${kind} ${n}`)
                        .join(", ")}
                    </td>
                    <td>{device.last_kind}</td>
                    <td>{when(device.first_seen_at)}</td>
                    <td>{when(device.last_seen_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ))}
      <h2>Timeline</h2>
      <form class="inline-form" onSubmit={apply} aria-label="Timeline filters" noValidate>
        <label>
          User
          <select name="user">
            <option value="">Everyone</option>
            {(users.data ?? []).map((user) => (
              <option key={user.id} value={user.id}>
                {user.username}
              </option>
            ))}
          </select>
        </label>
        <label>
          Device
          <input name="device" autoComplete="off" />
        </label>
        <label>
          Kind
          <select name="kind">
            <option value="">Any</option>
            {DIAGNOSTIC_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {kind}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input name="from" type="datetime-local" step={1} />
        </label>
        <label>
          To
          <input name="to" type="datetime-local" step={1} />
        </label>
        <button type="submit" class="primary">
          Show
        </button>
      </form>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      {events.value.length === 0 ? (
        <p class="muted">{loading.value ? "Loading…" : "No events match."}</p>
      ) : (
        <TableScroll label="Timeline table">
          <table class="data-table" aria-label="Timeline">
            <caption>
              {plural(events.value.length, "event")}
              {cursor.value === null ? "" : " so far"}
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">User</th>
                <th scope="col">Device</th>
                <th scope="col">Kind</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              {events.value.map((event) => (
                <tr key={event.id} data-kind={event.kind}>
                  <th scope="row">{when(event.occurred_at)}</th>
                  <td>{event.username}</td>
                  <td>
                    <code>{event.device_id}</code>
                  </td>
                  <td>{event.kind}</td>
                  <td>
                    <code>{JSON.stringify(event.data)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {cursor.value !== null && (
        <button type="button" disabled={loading.value} onClick={() => void load(filters.value, cursor.value)}>
          Load more
        </button>
      )}
    </section>
  )
}

export default function DiagnosticsPage() {
  return (
    <AdminOnly>
      <Diagnostics />
    </AdminOnly>
  )
}
