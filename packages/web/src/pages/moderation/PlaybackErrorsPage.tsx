import { useSignal } from "@preact/signals"
import { PLAYBACK_ERROR_RESOLUTIONS, type PlaybackError, type PlaybackErrorResolution } from "@tonearm/core"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural, when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const PAGE = 50

const KIND_NAMES: Record<PlaybackError["kind"], string> = {
  load_failed: "Failed to load",
  stalled: "Stalled",
  zero_duration: "Zero duration",
}

/** Admin: playback errors clients reported (GET /api/admin/playback-errors), each resolved once. */
function PlaybackErrors() {
  const showResolved = useSignal(false)
  const offset = useSignal(0)
  const choice = useSignal<Record<string, PlaybackErrorResolution>>({})
  const list = useLoad(
    (signal) =>
      api(
        (client) =>
          client.adminPlaybackErrors.list({
            urlParams: { resolved: showResolved.value, offset: offset.value, limit: PAGE },
          }),
        signal,
      ),
    [showResolved.value, offset.value],
  )
  const { message, run } = useAction(list.reload)
  const resolve = (row: PlaybackError) => {
    const resolution = choice.value[row.id] ?? "fixed"
    return run(
      () => api((client) => client.adminPlaybackErrors.resolve({ path: { id: row.id }, payload: { resolution } })),
      { done: `${row.track_title}: resolved as ${resolution.replace("_", "-")}.`, failed: row.track_title },
    )
  }
  const data = list.data
  return (
    <section>
      <h1>Playback errors</h1>
      <label class="check">
        <input
          type="checkbox"
          checked={showResolved.value}
          onChange={(event) => {
            showResolved.value = event.currentTarget.checked
            offset.value = 0
          }}
        />{" "}
        Show resolved errors
      </label>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      <Status loaded={list} />
      {data !== undefined &&
        (data.items.length === 0 ? (
          <p class="muted">{showResolved.value ? "No resolved errors." : "No open playback errors."}</p>
        ) : (
          <>
            <TableScroll label="Playback errors table">
              <table class="data-table">
                <caption>{plural(data.total, `${showResolved.value ? "resolved" : "open"} error`)}</caption>
                <thead>
                  <tr>
                    <th scope="col">Track</th>
                    <th scope="col">Artist</th>
                    <th scope="col">Album</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Message</th>
                    <th scope="col">User</th>
                    <th scope="col">Client</th>
                    <th scope="col">Reported</th>
                    <th scope="col">{showResolved.value ? "Resolution" : "Resolve"}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((row) => (
                    <tr key={row.id} data-error={row.id}>
                      <th scope="row">{row.track_title}</th>
                      <td>{row.artist_name}</td>
                      <td>{row.album_title}</td>
                      <td>{KIND_NAMES[row.kind]}</td>
                      <td>{row.message ?? "–"}</td>
                      <td>{row.username}</td>
                      <td>
                        <code>{row.client_id}</code>
                      </td>
                      <td>{when(row.created_at)}</td>
                      <td class="row-actions">
                        {row.resolution !== null ? (
                          `${row.resolution.replace("_", "-")} ${when(row.resolved_at)}`
                        ) : (
                          <>
                            <select
                              aria-label={`Resolution for ${row.track_title}`}
                              value={choice.value[row.id] ?? "fixed"}
                              onChange={(event) =>
                                (choice.value = {
                                  ...choice.value,
                                  [row.id]: event.currentTarget.value as PlaybackErrorResolution,
                                })
                              }
                            >
                              {PLAYBACK_ERROR_RESOLUTIONS.map((resolution) => (
                                <option key={resolution} value={resolution}>
                                  {resolution.replace("_", "-")}
                                </option>
                              ))}
                            </select>
                            <button
                              type="button"
                              aria-label={`Resolve ${row.track_title}`}
                              onClick={() => void resolve(row)}
                            >
                              Resolve
                            </button>
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled={offset.value === 0} onClick={() => (offset.value -= PAGE)}>
                Newer
              </button>
              <button type="button" disabled={offset.value + PAGE >= data.total} onClick={() => (offset.value += PAGE)}>
                Older
              </button>
            </nav>
          </>
        ))}
    </section>
  )
}

export default function PlaybackErrorsPage() {
  return (
    <AdminOnly>
      <PlaybackErrors />
    </AdminOnly>
  )
}
