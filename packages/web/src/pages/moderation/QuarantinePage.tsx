import { useSignal } from "@preact/signals"
import type { QuarantineAction, QuarantineEntry } from "@tonearm/core"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural, when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const VERDICTS: ReadonlyArray<{
  readonly action: QuarantineAction
  readonly label: string
  readonly confirm?: string
}> = [
  { action: "keep", label: "Keep" },
  {
    action: "delete_file",
    label: "Delete file",
    confirm: "Delete this file from disk and the track from the library?",
  },
  {
    action: "delete_via_manager",
    label: "Delete via manager",
    confirm: "Ask the acquisition manager to delete this file, and remove the track from the library?",
  },
]

const ACTION_NAMES: Record<QuarantineAction, string> = {
  keep: "kept",
  delete_file: "file deleted",
  delete_via_manager: "deleted via manager",
}

/** Admin: tracks listeners flagged (GET /api/admin/quarantine), each resolved with one verdict for everyone. */
function Quarantine() {
  const showResolved = useSignal(false)
  const list = useLoad(
    (signal) =>
      api((client) => client.moderation.list({ urlParams: { resolved: showResolved.value, limit: 200 } }), signal),
    [showResolved.value],
  )
  const { message, run } = useAction(list.reload)
  const resolve = (entry: QuarantineEntry, action: QuarantineAction, confirmText?: string) =>
    run(() => api((client) => client.moderation.resolve({ path: { id: entry.id }, payload: { action } })), {
      ...(confirmText === undefined ? {} : { confirm: confirmText }),
      done: (done) => `${entry.track_title}: ${ACTION_NAMES[action]} (${plural(done.resolved, "flag")} resolved).`,
      failed: entry.track_title,
    })
  return (
    <section>
      <h1>Quarantine</h1>
      <p class="muted">
        Tracks listeners flagged. A flagged track leaves the flagger's shuffle, radio, top tracks and mixes until you
        resolve it: keep it (it comes back), delete its file, or have the acquisition manager delete it.
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={showResolved.value}
          onChange={(event) => (showResolved.value = event.currentTarget.checked)}
        />{" "}
        Show resolved flags
      </label>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      <Status loaded={list} />
      {list.data !== undefined &&
        (list.data.items.length === 0 ? (
          <p class="muted">{showResolved.value ? "No resolved flags." : "Nothing flagged."}</p>
        ) : (
          <TableScroll label="Flagged tracks">
            <table class="data-table">
              <caption>{plural(list.data.total, `${showResolved.value ? "resolved" : "open"} flag`)}</caption>
              <thead>
                <tr>
                  <th scope="col">Track</th>
                  <th scope="col">Artist</th>
                  <th scope="col">Album</th>
                  <th scope="col">Flagged by</th>
                  <th scope="col">Reason</th>
                  <th scope="col">When</th>
                  <th scope="col">{showResolved.value ? "Verdict" : "Resolve"}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((entry) => (
                  <tr key={entry.id} data-flag={entry.id}>
                    <th scope="row">{entry.track_title}</th>
                    <td>{entry.artist_name}</td>
                    <td>{entry.album_title}</td>
                    <td>{entry.username}</td>
                    <td>{entry.reason === "" ? "–" : entry.reason}</td>
                    <td>{when(entry.created_at)}</td>
                    <td class="row-actions">
                      {entry.action !== null
                        ? `${ACTION_NAMES[entry.action]} ${when(entry.resolved_at)}`
                        : VERDICTS.map((verdict) => (
                            <button
                              key={verdict.action}
                              type="button"
                              aria-label={`${verdict.label}: ${entry.track_title}`}
                              onClick={() => void resolve(entry, verdict.action, verdict.confirm)}
                            >
                              {verdict.label}
                            </button>
                          ))}
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

export default function QuarantinePage() {
  return (
    <AdminOnly>
      <Quarantine />
    </AdminOnly>
  )
}
