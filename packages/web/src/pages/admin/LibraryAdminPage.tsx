import { useSignal } from "@preact/signals"
import type { ScanStatus } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { AdminOnly } from "../../components/AdminOnly.js"
import { formatMs, plural, when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"

const POLL_MS = 1000

/** The scan: start one (incremental or full) and follow it live — GET /api/admin/scan polled while it runs. */
function Scan(props: { readonly onFinished: () => void }) {
  const status = useSignal<ScanStatus | undefined>(undefined)
  const { message, run } = useAction()
  const error = useSignal("")
  const poll = async () => {
    try {
      const next = await api((client) => client.scan.status())
      const wasRunning = status.value?.state === "running"
      status.value = next
      error.value = ""
      if (wasRunning && next.state !== "running") props.onFinished()
    } catch (failure) {
      error.value = errorMessage(failure)
    }
  }
  useEffect(() => {
    void poll()
  }, [])
  const running = status.value?.state === "running"
  useEffect(() => {
    if (!running) return
    const timer = setInterval(() => void poll(), POLL_MS)
    return () => clearInterval(timer)
  }, [running])
  const start = (full: boolean) =>
    run(
      async () => {
        const started = await api((client) => client.scan.start({ payload: full ? { full: true } : {} }))
        await poll()
        return started
      },
      {
        done: (started) => {
          if (status.value?.state !== "running") props.onFinished()
          return started.started ? `${full ? "Full" : "Incremental"} scan started.` : "A scan is already running."
        },
      },
    )
  const scan = status.value
  return (
    <section aria-labelledby="scan-heading" class="admin-card">
      <h2 id="scan-heading">Scan</h2>
      <div class="actions">
        <button type="button" class="primary" disabled={running} onClick={() => start(false)}>
          Scan for changes
        </button>
        <button type="button" disabled={running} onClick={() => start(true)}>
          Full rescan
        </button>
        <span role="status" class="muted">
          {message.value}
        </span>
      </div>
      {error.value !== "" && <p role="alert">Could not read the scan status: {error.value}</p>}
      {scan !== undefined && (
        <dl class="stats" aria-label="Scan progress" aria-live="polite" data-state={scan.state}>
          <div>
            <dt>State</dt>
            <dd class={`scan-state ${scan.state}`}>{scan.state}</dd>
          </div>
          <div>
            <dt>Files seen</dt>
            <dd>{scan.files_seen}</dd>
          </div>
          <div>
            <dt>Added</dt>
            <dd>{scan.added}</dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>{scan.updated}</dd>
          </div>
          <div>
            <dt>Missing</dt>
            <dd>{scan.removed}</dd>
          </div>
          <div>
            <dt>Errors</dt>
            <dd>{scan.errors}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>{when(scan.started_at)}</dd>
          </div>
          <div>
            <dt>Finished</dt>
            <dd>{when(scan.finished_at)}</dd>
          </div>
        </dl>
      )}
      {running && <progress aria-label="Scanning" />}
      {scan?.message !== null && scan?.message !== undefined && <p role="alert">{scan.message}</p>}
    </section>
  )
}

/**
 * The libraries: each music folder with its tracks, its own scan (state and figures from GET /api/admin/scan),
 * add, rename, remove and scan one. A removed library's tracks are missing until it is added again or purged.
 */
function Libraries(props: { readonly version: number; readonly onChanged: () => void }) {
  const tick = useSignal(0)
  const { message, run } = useAction(() => {
    tick.value++
    props.onChanged()
  })
  const libraries = useLoad(
    (signal) =>
      Promise.all([
        api((client) => client.adminLibraries.list(), signal),
        api((client) => client.scan.status(), signal),
      ]).then(([list, status]) => ({ list, status })),
    [props.version, tick.value],
  )
  // A library's scan runs: its row follows it.
  const scanning = libraries.data?.status.libraries.some((scan) => scan.state === "running") === true
  useEffect(() => {
    if (!scanning) return
    const timer = setInterval(() => tick.value++, POLL_MS)
    return () => clearInterval(timer)
  }, [scanning])
  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    const folder = String(data.get("path") ?? "").trim()
    const name = String(data.get("name") ?? "").trim() || folder.split("/").filter(Boolean).pop() || folder
    const added = await run(() => api((client) => client.adminLibraries.add({ payload: { name, path: folder } })), {
      done: (library) => `Added ${library.name}; scanning it now.`,
      failed: "Could not add the library",
    })
    if (added) form.reset()
  }
  const data = libraries.data
  const scans = new Map((data?.status.libraries ?? []).map((scan) => [scan.library_id, scan]))
  return (
    <section aria-labelledby="libraries-heading" class="admin-card">
      <h2 id="libraries-heading">Libraries</h2>
      <p class="muted">
        Each music folder is a library with its own scan. Listeners hear the libraries given to them on the Users page.
      </p>
      <form class="admin-form" onSubmit={add} aria-label="Add a library" noValidate>
        <label>
          Folder on the server
          <input name="path" required placeholder="/music/audiobooks" autoComplete="off" />
        </label>
        <label>
          Name (optional)
          <input name="name" autoComplete="off" />
        </label>
        <button type="submit" class="primary">
          Add library
        </button>
      </form>
      <span role="status" class="muted">
        {message.value}
      </span>
      <Status loaded={libraries} />
      {data !== undefined && (
        <TableScroll label="Libraries table">
          <table class="data-table" aria-label="Libraries">
            <thead>
              <tr>
                <th scope="col">Library</th>
                <th scope="col">Folder</th>
                <th scope="col">Tracks</th>
                <th scope="col">Scan</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.list.items.map((library) => {
                const scan = scans.get(library.id)
                return (
                  <tr key={library.id} data-library={library.name}>
                    <th scope="row">{library.name}</th>
                    <td>
                      <code>{library.path ?? "–"}</code>
                    </td>
                    <td>{library.track_count}</td>
                    <td>
                      <span class={`scan-state ${scan?.state ?? "idle"}`}>{scan?.state ?? "never scanned"}</span>
                      {scan !== undefined && scan.finished_at !== null && (
                        <span class="muted">
                          {" "}
                          · {plural(scan.files_seen, "file")} · {when(scan.finished_at)}
                        </span>
                      )}
                      {scan?.message !== null && scan?.message !== undefined && (
                        <span class="muted"> · {scan.message}</span>
                      )}
                    </td>
                    <td class="row-actions">
                      <button
                        type="button"
                        aria-label={`Scan ${library.name}`}
                        disabled={scan?.state === "running"}
                        onClick={() =>
                          run(() => api((client) => client.adminLibraries.scan({ path: { id: library.id } })), {
                            done: (started) =>
                              started.started ? `Scanning ${library.name}.` : `${library.name} is scanning already.`,
                          })
                        }
                      >
                        Scan
                      </button>
                      <button
                        type="button"
                        aria-label={`Rename ${library.name}`}
                        onClick={() => {
                          const name = window.prompt(`New name for ${library.name}`, library.name)?.trim()
                          if (name === undefined || name === "" || name === library.name) return
                          void run(
                            () =>
                              api((client) =>
                                client.adminLibraries.rename({ path: { id: library.id }, payload: { name } }),
                              ),
                            { done: `Renamed to ${name}.` },
                          )
                        }}
                      >
                        Rename
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Remove ${library.name}`}
                        onClick={() =>
                          run(() => api((client) => client.adminLibraries.remove({ path: { id: library.id } })), {
                            confirm: `Remove ${library.name}? Its tracks become missing; likes, playlists and plays stay, and adding the folder again brings them back.`,
                            done: `Removed ${library.name}.`,
                          })
                        }
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  )
}

function ScanErrors(props: { readonly version: number }) {
  const errors = useLoad(
    (signal) =>
      Promise.all([
        api((client) => client.scan.errors({ urlParams: { limit: 100 } }), signal),
        api((client) => client.adminLibraries.list(), signal),
      ]).then(([page, libraries]) => ({
        ...page,
        // A file's library is named only when there are several.
        libraryNames: new Map(
          libraries.items.length > 1 ? libraries.items.map((library) => [library.id, library.name] as const) : [],
        ),
      })),
    [props.version],
  )
  const names = errors.data?.libraryNames
  return (
    <section aria-labelledby="scan-errors" class="admin-card">
      <h2 id="scan-errors">Files that could not be indexed</h2>
      <Status loaded={errors} />
      {errors.data !== undefined &&
        (errors.data.items.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <TableScroll label="Files that could not be indexed">
            <table class="data-table">
              <caption>
                {plural(errors.data.total, "file")}
                {errors.data.total > errors.data.items.length ? ` (first ${errors.data.items.length})` : ""}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Path</th>
                  <th scope="col">Why</th>
                  <th scope="col">Seen</th>
                </tr>
              </thead>
              <tbody>
                {errors.data.items.map((item) => (
                  <tr key={`${item.library_id}:${item.path}`}>
                    <th scope="row">
                      {names?.has(item.library_id) === true && (
                        <span class="muted">{names.get(item.library_id)}: </span>
                      )}
                      <code>{item.path}</code>
                    </th>
                    <td>{item.message}</td>
                    <td>{when(item.seen_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ))}
    </section>
  )
}

function MissingTracks(props: { readonly version: number }) {
  const tick = useSignal(0)
  const { message, run } = useAction(() => tick.value++)
  const missing = useLoad(
    (signal) => api((client) => client.missingTracks.list({ urlParams: { limit: 200 } }), signal),
    [props.version, tick.value],
  )
  const purge = async (trackIds?: ReadonlyArray<string>) => {
    const what = trackIds === undefined ? "every missing track" : "this track"
    await run(
      () =>
        api((client) =>
          client.missingTracks.purge({ payload: trackIds === undefined ? {} : { track_ids: trackIds as never } }),
        ),
      {
        confirm: `Purge ${what} for good? Their likes, playlist entries and plays go too.`,
        done: (result) => `Purged ${plural(result.purged, "track")}.`,
      },
    )
  }
  return (
    <section aria-labelledby="missing-heading" class="admin-card">
      <h2 id="missing-heading">Missing tracks</h2>
      <p class="muted">Files that vanished: hidden everywhere, kept until they return or you purge them.</p>
      <span role="status" class="muted">
        {message.value}
      </span>
      <Status loaded={missing} />
      {missing.data !== undefined &&
        (missing.data.items.length === 0 ? (
          <p class="muted">No missing tracks.</p>
        ) : (
          <>
            <button type="button" class="danger" onClick={() => purge()}>
              Purge all {plural(missing.data.total, "missing track")}
            </button>
            <TableScroll label="Missing tracks">
              <table class="data-table">
                <thead>
                  <tr>
                    <th scope="col">Track</th>
                    <th scope="col">Artist · album</th>
                    <th scope="col">Length</th>
                    <th scope="col">Missing since</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  {missing.data.items.map((track) => (
                    <tr key={track.id}>
                      <th scope="row">{track.title}</th>
                      <td>
                        {track.artist_name} · {track.album_title}
                      </td>
                      <td>{formatMs(track.duration_ms)}</td>
                      <td>{when(track.missing_since)}</td>
                      <td>
                        <button type="button" aria-label={`Purge ${track.title}`} onClick={() => purge([track.id])}>
                          Purge
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </>
        ))}
    </section>
  )
}

function CoverSources(props: { readonly version: number }) {
  const sources = useLoad((signal) => api((client) => client.coverSources.list(), signal), [props.version])
  const data = sources.data
  return (
    <section aria-labelledby="covers-heading" class="admin-card">
      <h2 id="covers-heading">Cover sources</h2>
      <Status loaded={sources} />
      {data !== undefined && (
        <>
          <p>
            {data.coverage.covered} of {plural(data.coverage.albums, "album")}{" "}
            {data.coverage.albums === 1 ? "has" : "have"} a cover
            {data.coverage.albums > 0 ? ` (${Math.round((data.coverage.covered / data.coverage.albums) * 100)}%)` : ""}.
          </p>
          <TableScroll label="Cover sources">
            <table class="data-table">
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Albums covered</th>
                </tr>
              </thead>
              <tbody>
                {data.providers.map((provider) => (
                  <tr key={provider.id}>
                    <th scope="row">{provider.id}</th>
                    <td>{provider.enabled ? "Yes" : "No"}</td>
                    <td>{data.coverage.by_source[provider.id] ?? provider.covered_albums}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </section>
  )
}

/** Admin: the library — scan with live progress, the libraries, scan errors, missing tracks (purge), cover sources. */
function LibraryAdmin() {
  const version = useSignal(0)
  return (
    <div>
      <h1>Library</h1>
      <Scan onFinished={() => version.value++} />
      <Libraries version={version.value} onChanged={() => version.value++} />
      <ScanErrors version={version.value} />
      <MissingTracks version={version.value} />
      <CoverSources version={version.value} />
    </div>
  )
}

export default function LibraryAdminPage() {
  return (
    <AdminOnly>
      <LibraryAdmin />
    </AdminOnly>
  )
}
