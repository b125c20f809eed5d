import { type Signal, useSignal } from "@preact/signals"
import type { ImportId, ImportSource, ImportState, ImportStatus, UnmatchedListen } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { plural, when } from "../../components/format.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"
import { connectedAt, onServerEvent } from "../../state/events.js"
import { session } from "../../state/session.js"
import { type UploadProgress, uploadExport } from "./upload.js"
import "../../styles/history.css"

const SOURCE_NAMES: Record<ImportSource, string> = {
  listenbrainz_export: "ListenBrainz export",
  spotify_extended: "Spotify streaming history",
  lastfm_api: "Last.fm",
  navidrome_db: "Navidrome database",
}

type Choice = "listenbrainz_export" | "spotify_extended" | "lastfm_api"

const CHOICES: ReadonlyArray<{ readonly source: Choice; readonly label: string; readonly help: string }> = [
  {
    source: "listenbrainz_export",
    label: "ListenBrainz export",
    help: "The JSON or JSONL of your listens (ListenBrainz: Settings → Export), or its zip. Tonearm's own export too.",
  },
  {
    source: "spotify_extended",
    label: "Spotify extended streaming history",
    help: "The Streaming_History_Audio_*.json files of Spotify's extended history download, or the zip. Several files at once are several imports.",
  },
  {
    source: "lastfm_api",
    label: "Last.fm account",
    help: "Every scrobble of a Last.fm account, pulled page by page (a large history takes a while).",
  },
]

/** Counters as the event stream updates them between two loads of the list. */
type Live = Pick<ImportStatus, "state" | "total" | "matched" | "unmatched" | "duplicates">

const isActive = (state: ImportState) => state === "queued" || state === "running"

const percent = (progress: UploadProgress) =>
  progress.total <= 0 ? 0 : Math.min(100, Math.round((progress.sent / progress.total) * 100))

/** The upload bar while a file goes up. */
function UploadBar(props: { readonly name: string; readonly progress: UploadProgress }) {
  const pct = percent(props.progress)
  return (
    <div class="upload-progress">
      <progress max={100} value={pct} aria-label={`Uploading ${props.name}`} />
      <span class="muted" aria-live="polite">
        Uploading {props.name}: {pct} %
      </span>
    </div>
  )
}

/** The form: a source, then its file(s) or the Last.fm username. */
function ImportForm(props: { readonly onStarted: () => void }) {
  const source = useSignal<Choice>("listenbrainz_export")
  const files = useSignal<ReadonlyArray<File>>([])
  const username = useSignal("")
  const uploading = useSignal<{ name: string; progress: UploadProgress } | undefined>(undefined)
  const busy = useSignal(false)
  const message = useSignal("")
  const failed = useSignal(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    busy.value = true
    message.value = ""
    failed.value = false
    try {
      if (source.value === "lastfm_api") {
        const name = username.value.trim()
        await api((client) =>
          client.imports.create({ urlParams: {}, payload: { source: "lastfm_api", username: name } }),
        )
        message.value = `Pulling ${name}'s Last.fm scrobbles.`
      } else {
        let started = 0
        for (const file of files.value) {
          uploading.value = { name: file.name, progress: { sent: 0, total: file.size } }
          await uploadExport("/api/me/imports", { file, source: source.value }, (progress) => {
            uploading.value = { name: file.name, progress }
          })
          started += 1
          props.onStarted()
        }
        message.value = `${plural(started, "import")} started.`
        files.value = []
        ;(event.target as HTMLFormElement).reset()
      }
      props.onStarted()
    } catch (failure) {
      message.value = `Could not start the import: ${errorMessage(failure)}`
      failed.value = true
    } finally {
      uploading.value = undefined
      busy.value = false
    }
  }

  const fileSource = source.value !== "lastfm_api"
  return (
    <form class="settings import-form" onSubmit={(event) => void submit(event)}>
      <fieldset class="choices">
        <legend>Import listening history</legend>
        {CHOICES.map((choice) => (
          <label class="choice" key={choice.source}>
            <input
              type="radio"
              name="import-source"
              value={choice.source}
              checked={source.value === choice.source}
              onChange={() => {
                source.value = choice.source
              }}
              aria-describedby={`import-${choice.source}-help`}
            />
            <span>
              <span class="choice-label">{choice.label}</span>
              <span class="muted" id={`import-${choice.source}-help`}>
                {choice.help}
              </span>
            </span>
          </label>
        ))}
        {fileSource ? (
          <label class="field">
            {source.value === "spotify_extended" ? "History files or zip" : "Export file"}
            <input
              type="file"
              required
              multiple={source.value === "spotify_extended"}
              accept=".json,.jsonl,.zip,application/json,application/zip"
              onChange={(event) => {
                files.value = [...((event.target as HTMLInputElement).files ?? [])]
              }}
            />
          </label>
        ) : (
          <label class="field">
            Last.fm username
            <input
              type="text"
              required
              maxLength={64}
              autoComplete="off"
              value={username.value}
              onInput={(event) => {
                username.value = (event.target as HTMLInputElement).value
              }}
            />
          </label>
        )}
        <p class="muted">
          Each listen is matched to a track of this library; the same listen twice is one play, so importing again adds
          nothing.
        </p>
        <button type="submit" class="primary" disabled={busy.value}>
          {source.value === "lastfm_api" ? "Pull from Last.fm" : "Upload and import"}
        </button>
      </fieldset>
      {uploading.value !== undefined && <UploadBar name={uploading.value.name} progress={uploading.value.progress} />}
      <p role={failed.value ? "alert" : "status"} class={failed.value ? "error" : undefined}>
        {message.value}
      </p>
    </form>
  )
}

/** The entries of an import that matched no track, a page at a time. */
function Unmatched(props: { readonly id: ImportId; readonly count: number }) {
  const open = useSignal(false)
  const items = useSignal<ReadonlyArray<UnmatchedListen>>([])
  const cursor = useSignal<string | null>(null)
  const error = useSignal("")
  const load = async (after: string | null) => {
    try {
      const page = await api((client) =>
        client.imports.unmatched({
          path: { id: props.id },
          urlParams: after === null ? { limit: 50 } : { limit: 50, cursor: after },
        }),
      )
      items.value = after === null ? page.items : [...items.value, ...page.items]
      cursor.value = page.cursor
      error.value = ""
    } catch (failure) {
      error.value = errorMessage(failure)
    }
  }
  if (props.count === 0) return null
  const listId = `unmatched-${props.id}`
  return (
    <div class="unmatched">
      <button
        type="button"
        aria-expanded={open.value}
        aria-controls={listId}
        onClick={() => {
          open.value = !open.value
          if (open.value) void load(null)
        }}
      >
        {open.value ? "Hide" : "Show"} unmatched ({props.count})
      </button>
      {open.value && (
        <div id={listId}>
          {error.value !== "" && (
            <p role="alert" class="error">
              Could not load: {error.value}
            </p>
          )}
          <ol class="unmatched-list" aria-label="Unmatched listens">
            {items.value.map((item) => (
              <li key={item.position}>
                <span class="unmatched-what">
                  {item.artist === "" ? <em>no artist</em> : item.artist} —{" "}
                  {item.title === "" ? <em>no title</em> : item.title}
                  {item.album !== null && <span class="muted"> ({item.album})</span>}
                </span>
                <span class="muted">
                  {when(item.listened_at)} · {item.reason === "incomplete" ? "incomplete entry" : "no such track here"}
                </span>
              </li>
            ))}
          </ol>
          {cursor.value !== null && (
            <button type="button" onClick={() => void load(cursor.value)}>
              Show more
            </button>
          )}
        </div>
      )}
    </div>
  )
}

/** One import: what it is, how far, its counts, its unmatched entries. */
function ImportCard(props: { readonly status: ImportStatus; readonly live: Live | undefined }) {
  const { status } = props
  const now = props.live ?? status
  const titleId = `import-${status.id}`
  return (
    <article class="import-card" aria-labelledby={titleId} data-import-id={status.id}>
      <header>
        <h3 id={titleId}>{SOURCE_NAMES[status.source]}</h3>
        <span class={`import-state ${now.state}`} data-testid="import-state">
          {now.state}
        </span>
      </header>
      {isActive(now.state) && <progress aria-label={`${SOURCE_NAMES[status.source]} import in progress`} />}
      <dl class="stats">
        <div>
          <dt>Read</dt>
          <dd data-testid="import-total">{now.total}</dd>
        </div>
        <div>
          <dt>Matched</dt>
          <dd data-testid="import-matched">{now.matched}</dd>
        </div>
        <div>
          <dt>Unmatched</dt>
          <dd data-testid="import-unmatched">{now.unmatched}</dd>
        </div>
        <div>
          <dt>Already played</dt>
          <dd data-testid="import-duplicates">{now.duplicates}</dd>
        </div>
      </dl>
      <p class="muted">
        {status.started_at === null ? "Waiting to start" : `Started ${when(status.started_at)}`}
        {status.finished_at !== null && ` · finished ${when(status.finished_at)}`}
      </p>
      {status.message !== null && (
        <p class={now.state === "failed" ? "error" : "muted"} data-testid="import-message">
          {status.message}
        </p>
      )}
      {!isActive(now.state) && <Unmatched id={status.id} count={now.unmatched} />}
    </article>
  )
}

/** Follows `import.progress` for the imports shown; reloads when one ends or an unknown one appears. */
const useLiveProgress = (known: ReadonlyArray<string>, reload: () => void): Signal<Record<string, Live>> => {
  const live = useSignal<Record<string, Live>>({})
  useEffect(
    () =>
      onServerEvent("import.progress", (event) => {
        const data = event.data as { import_id: string } & Live
        live.value = { ...live.value, [data.import_id]: data }
        if (!known.includes(data.import_id) || !isActive(data.state)) reload()
      }),
    [known.join(",")],
  )
  return live
}

/** The caller's imports, newest first, live. */
function ImportList(props: { readonly reloadKey: number }) {
  const list = useLoad(
    (signal) => api((client) => client.imports.list({ urlParams: { limit: 50 } }), signal),
    [props.reloadKey, connectedAt.value],
  )
  const items = list.data?.items ?? []
  const live = useLiveProgress(
    items.map((item) => item.id),
    list.reload,
  )
  // A running import's counters keep moving between events only when one comes; poll slowly as a fallback.
  const active = items.some((item) => isActive(live.value[item.id]?.state ?? item.state))
  useEffect(() => {
    if (!active) return
    const timer = setInterval(list.reload, 5_000)
    return () => clearInterval(timer)
  }, [active])
  return (
    <section aria-labelledby="imports-heading">
      <h2 id="imports-heading">Your imports</h2>
      <Status loaded={list} />
      {list.data !== undefined && items.length === 0 && <p class="muted">Nothing imported yet.</p>}
      {items.map((item) => {
        const update = live.value[item.id]
        // A loaded row newer than the last event wins (the list reloads when an import ends).
        const fresh = update !== undefined && (isActive(item.state) || !isActive(update.state)) ? update : undefined
        return <ImportCard key={item.id} status={item} live={fresh} />
      })}
    </section>
  )
}

/** The admin's Navidrome database import: every user's stars, plays, ratings and playlists. */
function NavidromeImport() {
  const file = useSignal<File | undefined>(undefined)
  const uploading = useSignal<UploadProgress | undefined>(undefined)
  const message = useSignal("")
  const failed = useSignal(false)
  const current = useSignal<ImportStatus | undefined>(undefined)
  const KEY = "tonearm.navidromeImport"

  const refresh = async (id: string) => {
    try {
      current.value = await api((client) => client.adminImports.get({ path: { id: id as ImportId } }))
    } catch {
      localStorage.removeItem(KEY)
    }
  }
  useEffect(() => {
    const last = localStorage.getItem(KEY)
    if (last !== null) void refresh(last)
    return onServerEvent("import.progress", (event) => {
      const id = (event.data as { import_id: string }).import_id
      if (id === localStorage.getItem(KEY)) void refresh(id)
    })
  }, [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const chosen = file.value
    if (chosen === undefined) return
    message.value = ""
    failed.value = false
    try {
      uploading.value = { sent: 0, total: chosen.size }
      const created = await uploadExport("/api/admin/imports", { file: chosen, source: "navidrome_db" }, (progress) => {
        uploading.value = progress
      })
      localStorage.setItem(KEY, created.id)
      message.value = "Navidrome import started."
      await refresh(created.id)
    } catch (failure) {
      message.value = `Could not start the import: ${errorMessage(failure)}`
      failed.value = true
    } finally {
      uploading.value = undefined
    }
  }

  const status = current.value
  return (
    <section aria-labelledby="navidrome-heading" class="admin-card">
      <h2 id="navidrome-heading">Navidrome database (admin)</h2>
      <p class="muted">
        Moving from Navidrome: upload its <code>navidrome.db</code>. Each Navidrome user with the same username here
        gets their stars (as likes), ratings, play counts and playlists.
      </p>
      <form class="admin-form" onSubmit={(event) => void submit(event)}>
        <label class="field">
          navidrome.db
          <input
            type="file"
            required
            accept=".db,application/vnd.sqlite3,application/x-sqlite3"
            onChange={(event) => {
              file.value = (event.target as HTMLInputElement).files?.[0]
            }}
          />
        </label>
        <button type="submit" disabled={uploading.value !== undefined}>
          Import Navidrome database
        </button>
      </form>
      {uploading.value !== undefined && file.value !== undefined && (
        <UploadBar name={file.value.name} progress={uploading.value} />
      )}
      <p role={failed.value ? "alert" : "status"} class={failed.value ? "error" : undefined}>
        {message.value}
      </p>
      {status !== undefined && <ImportCard status={status} live={undefined} />}
    </section>
  )
}

/**
 * Import & export (issue 26): bring years of listening in (ListenBrainz, Spotify, Last.fm; an admin's Navidrome
 * database), follow each import live, see what did not match, and take the whole history out as JSON lines.
 */
export default function ImportsPage() {
  const reloadKey = useSignal(0)
  return (
    <section class="history-page">
      <h1>Import &amp; export</h1>
      <p>
        Bring your listening from elsewhere: your mixes, Rediscover and stats learn from it at once. Imported plays keep
        their original times.
      </p>
      <ImportForm onStarted={() => (reloadKey.value += 1)} />
      <ImportList reloadKey={reloadKey.value} />
      <section aria-labelledby="export-heading">
        <h2 id="export-heading">Export</h2>
        <p>Your whole listening history as ListenBrainz JSON lines: importable here, or at ListenBrainz.</p>
        <a class="button" href="/api/me/plays/export" download="tonearm-listens.jsonl">
          Export my listening history
        </a>
      </section>
      {session.value?.is_admin === true && <NavidromeImport />}
    </section>
  )
}
