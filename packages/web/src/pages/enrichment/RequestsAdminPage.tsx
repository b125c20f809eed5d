import { useSignal } from "@preact/signals"
import type { AcquisitionRequest, RequestStatus } from "@tonearm/core"
import { AdminOnly } from "../../components/AdminOnly.js"
import { when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const FILTERS: ReadonlyArray<{ readonly value: RequestStatus | "all"; readonly label: string }> = [
  { value: "pending", label: "Pending" },
  { value: "approved", label: "Approved" },
  { value: "available", label: "Available" },
  { value: "rejected", label: "Rejected" },
  { value: "cancelled", label: "Cancelled" },
  { value: "all", label: "All" },
]

/** Admin: listeners' requests; approve (the manager is asked at once and re-asked until it confirms) or reject. */
function Requests() {
  const filter = useSignal<RequestStatus | "all">("pending")
  const list = useLoad(
    (signal) =>
      api(
        (client) => client.adminRequests.list({ urlParams: filter.value === "all" ? {} : { status: filter.value } }),
        signal,
      ),
    [filter.value],
  )
  const { message, run } = useAction(list.reload)
  const act = async (row: AcquisitionRequest, action: "approve" | "reject") => {
    await run(
      () =>
        action === "approve"
          ? api((client) => client.adminRequests.approve({ path: { id: row.id } }))
          : api((client) =>
              client.adminRequests.reject({
                path: { id: row.id },
                payload: { reason: prompt(`Why reject ${row.name}? (optional)`) ?? undefined },
              }),
            ),
      {
        done: (done) =>
          action === "approve"
            ? done.manager_add_confirmed_at === null
              ? `${row.name} approved; the manager has not confirmed yet (it is retried until it does).`
              : `${row.name} approved and added to the manager.`
            : `${row.name} rejected.`,
        failed: row.name,
      },
    )
  }
  return (
    <section>
      <h1>Requests</h1>
      <label>
        Show{" "}
        <select
          value={filter.value}
          onChange={(event) => (filter.value = event.currentTarget.value as RequestStatus | "all")}
        >
          {FILTERS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      <Status loaded={list} />
      {list.data !== undefined &&
        (list.data.length === 0 ? (
          <p class="muted">No requests.</p>
        ) : (
          <TableScroll label="Requests table">
            <table class="data-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">MusicBrainz id</th>
                  <th scope="col">Status</th>
                  <th scope="col">Requested</th>
                  <th scope="col">Manager</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((row) => (
                  <tr key={row.id} data-request={row.mbid}>
                    <th scope="row">{row.name}</th>
                    <td>{row.kind}</td>
                    <td>
                      <code>{row.mbid}</code>
                    </td>
                    <td>{row.status}</td>
                    <td>{when(row.created_at)}</td>
                    <td>
                      {row.status === "approved" || row.status === "available"
                        ? row.manager_add_confirmed_at === null
                          ? "not confirmed yet"
                          : `confirmed ${when(row.manager_add_confirmed_at)}`
                        : "–"}
                    </td>
                    <td class="row-actions">
                      {row.status === "pending" && (
                        <button
                          type="button"
                          aria-label={`Approve ${row.name}`}
                          onClick={() => void act(row, "approve")}
                        >
                          Approve
                        </button>
                      )}
                      {(row.status === "pending" || row.status === "approved") && (
                        <button type="button" aria-label={`Reject ${row.name}`} onClick={() => void act(row, "reject")}>
                          Reject
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

export default function RequestsAdminPage() {
  return (
    <AdminOnly>
      <Requests />
    </AdminOnly>
  )
}
