import { useSignal } from "@preact/signals"
import type { AcquisitionRequest, RequestKind } from "@tonearm/core"
import { when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { query } from "../../state/router.js"

const STATUS_NAMES: Record<AcquisitionRequest["status"], string> = {
  pending: "Waiting for approval",
  approved: "Approved",
  available: "In the library",
  cancelled: "Cancelled",
  rejected: "Rejected",
}

const isOpen = (request: AcquisitionRequest) => request.status === "pending" || request.status === "approved"

/**
 * A listener asks for music the library does not have: by MusicBrainz id (prefilled from `?mbid=&name=&kind=`),
 * or with one click from the artists Discover suggests that are not in the library. Their own requests below.
 */
export default function RequestsPage() {
  const mine = useLoad((signal) => api((client) => client.requests.list(), signal), [])
  const { message, run } = useAction(mine.reload)
  const suggestions = useLoad((signal) => api((client) => client.discover.suggestions(), signal), [])
  const kind = useSignal<RequestKind>(query.value.get("kind") === "album" ? "album" : "artist")
  const mbid = useSignal(query.value.get("mbid") ?? "")
  const name = useSignal(query.value.get("name") ?? "")

  const request = (payload: { kind: RequestKind; mbid: string; name: string }) =>
    run(() => api((client) => client.requests.create({ payload: payload as never })), {
      done: (made) => `Requested ${payload.name}: ${STATUS_NAMES[made.status].toLowerCase()}.`,
      failed: `Could not request ${payload.name}`,
    })
  const submit = (event: Event) => {
    event.preventDefault()
    void request({ kind: kind.value, mbid: mbid.value.trim().toLowerCase(), name: name.value.trim() })
  }
  const cancel = (row: AcquisitionRequest) =>
    run(() => api((client) => client.requests.cancel({ path: { id: row.id } })), {
      done: `Cancelled the request for ${row.name}.`,
      failed: "Could not cancel",
    })
  const requested = new Set((mine.data ?? []).filter(isOpen).map((row) => row.mbid))
  const outside = (suggestions.data ?? []).filter((suggestion) => !suggestion.in_library)

  return (
    <section>
      <h1>Request music</h1>
      <p class="muted">
        Ask for an artist or album the library does not have. An administrator approves it and the music manager fetches
        it; it shows as "In the library" once a scan finds it.
      </p>
      <form class="admin-form" onSubmit={submit} aria-labelledby="new-request" noValidate>
        <h2 id="new-request">New request</h2>
        <label>
          Kind
          <select value={kind.value} onChange={(event) => (kind.value = event.currentTarget.value as RequestKind)}>
            <option value="artist">Artist</option>
            <option value="album">Album</option>
          </select>
        </label>
        <label>
          MusicBrainz id
          <input
            name="mbid"
            value={mbid.value}
            onInput={(event) => (mbid.value = event.currentTarget.value)}
            placeholder="e.g. a74b1b7f-71a5-4011-9441-d0b5e4122711"
            autoComplete="off"
            required
          />
        </label>
        <label>
          Name
          <input
            name="name"
            value={name.value}
            onInput={(event) => (name.value = event.currentTarget.value)}
            autoComplete="off"
            required
          />
        </label>
        <button type="submit" class="primary">
          Request
        </button>
      </form>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      {outside.length > 0 && (
        <>
          <h2>Suggested for you, not in the library</h2>
          <ul class="suggestions" aria-label="Artists you could request">
            {outside.map((suggestion) => (
              <li key={suggestion.mbid} class="suggestion" data-mbid={suggestion.mbid}>
                <span class="card-title">{suggestion.name}</span>
                <span class="muted"> {suggestion.tags.slice(0, 3).join(", ")}</span>{" "}
                <button
                  type="button"
                  disabled={requested.has(suggestion.mbid)}
                  aria-label={`Request ${suggestion.name}`}
                  onClick={() => void request({ kind: "artist", mbid: suggestion.mbid, name: suggestion.name })}
                >
                  {requested.has(suggestion.mbid) ? "Requested" : "Request"}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Your requests</h2>
      <Status loaded={mine} />
      {mine.data !== undefined &&
        (mine.data.length === 0 ? (
          <p class="muted">You have not requested anything yet.</p>
        ) : (
          <TableScroll label="Your requests table">
            <table class="data-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                  <th scope="col">Requested</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {mine.data.map((row) => (
                  <tr key={row.id} data-request={row.mbid}>
                    <th scope="row">{row.name}</th>
                    <td>{row.kind}</td>
                    <td>
                      {STATUS_NAMES[row.status]}
                      {row.status === "rejected" && row.reason !== null ? ` (${row.reason})` : ""}
                    </td>
                    <td>{when(row.created_at)}</td>
                    <td class="row-actions">
                      {isOpen(row) && (
                        <button type="button" aria-label={`Cancel ${row.name}`} onClick={() => void cancel(row)}>
                          Cancel
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ))}
    </section>
  )
}
