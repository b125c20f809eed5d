import { useSignal } from "@preact/signals"
import type { TagSource } from "@tonearm/core"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { type Action, useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const NAMES: Record<string, string> = {
  musicbrainz: "MusicBrainz",
  lastfm: "Last.fm",
  listenbrainz: "ListenBrainz",
  coverartarchive: "Cover Art Archive",
}
const nameOf = (id: string) => NAMES[id] ?? id

/** One provider: enable, key, connection test. */
function SourceRow(props: { readonly source: TagSource; readonly action: Action }) {
  const { source } = props
  const key = useSignal(source.api_key ?? "")
  /** Says what `what` returns, or the provider's name and why it failed. */
  const run = (what: () => Promise<string>) =>
    props.action.run(what, { done: (text) => text, failed: nameOf(source.id) })
  return (
    <tr data-source={source.id}>
      <th scope="row">{nameOf(source.id)}</th>
      <td>{source.capabilities.join(", ")}</td>
      <td>
        {source.runs.settled} done, {source.runs.pending} waiting, {source.runs.failed} failed
      </td>
      <td>
        <label class="check">
          <input
            type="checkbox"
            checked={source.enabled}
            aria-label={`Enable ${nameOf(source.id)}`}
            onChange={(event) => {
              const enabled = event.currentTarget.checked
              void run(async () => {
                await api((client) => client.tagSources.update({ path: { id: source.id }, payload: { enabled } }))
                return `${nameOf(source.id)} ${enabled ? "enabled" : "disabled"}.`
              })
            }}
          />{" "}
          Enabled
        </label>
      </td>
      <td>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault()
            void run(async () => {
              await api((client) =>
                client.tagSources.update({ path: { id: source.id }, payload: { api_key: key.value.trim() } }),
              )
              return `${nameOf(source.id)} key saved.`
            })
          }}
        >
          <input
            value={key.value}
            onInput={(event) => (key.value = event.currentTarget.value)}
            aria-label={`API key for ${nameOf(source.id)}`}
            placeholder={source.requires_api_key ? "required" : "not needed"}
            autoComplete="off"
          />
          <button type="submit">Save key</button>
        </form>
      </td>
      <td class="row-actions">
        <button
          type="button"
          aria-label={`Test ${nameOf(source.id)}`}
          onClick={() =>
            void run(async () => {
              const result = await api((client) => client.tagSources.test({ path: { id: source.id } }))
              return `${nameOf(source.id)}: ${result.ok ? "connection works" : "not working"} (${result.message}).`
            })
          }
        >
          Test
        </button>
      </td>
    </tr>
  )
}

/** The music manager (Lidarr): URL, key, the defaults every add needs, auto-approve. */
function ManagerForm(props: { readonly action: Action }) {
  const settings = useLoad((signal) => api((client) => client.manager.get(), signal), [])
  const save = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const text = (name: string) => {
      const value = String(data.get(name) ?? "").trim()
      return value === "" ? null : value
    }
    const number = (name: string) => {
      const value = text(name)
      return value === null || !/^\d+$/.test(value) ? null : Number(value)
    }
    await props.action.run(
      () =>
        api((client) =>
          client.manager.set({
            payload: {
              url: text("url"),
              api_key: text("api_key"),
              root_folder_path: text("root_folder_path"),
              quality_profile_id: number("quality_profile_id"),
              metadata_profile_id: number("metadata_profile_id"),
              auto_approve: data.get("auto_approve") === "on",
            },
          }),
        ),
      {
        done: () => {
          settings.reload()
          return "Manager settings saved."
        },
        failed: "Manager settings not saved",
      },
    )
  }
  return (
    <>
      <Status loaded={settings} />
      {settings.data !== undefined && (
        <form class="admin-form" onSubmit={save} aria-labelledby="manager" noValidate>
          <h2 id="manager">Music manager (Lidarr)</h2>
          <label>
            URL
            <input name="url" defaultValue={settings.data.url ?? ""} placeholder="http://lidarr:8686" />
          </label>
          <label>
            API key
            <input name="api_key" defaultValue={settings.data.api_key ?? ""} autoComplete="off" />
          </label>
          <label>
            Root folder
            <input name="root_folder_path" defaultValue={settings.data.root_folder_path ?? ""} placeholder="/music" />
          </label>
          <label>
            Quality profile id
            <input
              name="quality_profile_id"
              inputMode="numeric"
              defaultValue={settings.data.quality_profile_id?.toString() ?? ""}
            />
          </label>
          <label>
            Metadata profile id
            <input
              name="metadata_profile_id"
              inputMode="numeric"
              defaultValue={settings.data.metadata_profile_id?.toString() ?? ""}
            />
          </label>
          <label class="check">
            <input name="auto_approve" type="checkbox" defaultChecked={settings.data.auto_approve} /> Approve requests
            automatically
          </label>
          <button type="submit" class="primary">
            Save manager
          </button>
        </form>
      )}
    </>
  )
}

/** Admin: tag and cover providers (enable, key, test, research), missing covers, the music manager. */
function Enrichment() {
  const sources = useLoad((signal) => api((client) => client.tagSources.list(), signal), [])
  const action = useAction(sources.reload)
  const { message } = action
  const act = (what: () => Promise<string>) => action.run(what, { done: (text) => text })
  return (
    <section>
      <h1>Enrichment</h1>
      <p class="muted">
        Providers add tags (for taste and moods), MusicBrainz ids, covers and similar artists. Each is asked at its own
        pace after every scan.
      </p>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      <Status loaded={sources} />
      {sources.data !== undefined && (
        <TableScroll label="Providers">
          <table class="data-table">
            <caption>Providers (version {sources.data.version})</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Gives</th>
                <th scope="col">Runs</th>
                <th scope="col">On</th>
                <th scope="col">Key</th>
                <th scope="col">Check</th>
              </tr>
            </thead>
            <tbody>
              {sources.data.providers.map((source) => (
                <SourceRow key={`${source.id}-${source.version}-${source.api_key}`} source={source} action={action} />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <div class="row-actions">
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              const done = await api((client) => client.tagSources.research())
              return `Research started: ${plural(done.reopened, "lookup")} will run again.`
            })
          }
        >
          Research everything
        </button>
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              const done = await api((client) => client.coverRefetch.refetchMissing())
              return done.started
                ? "Fetching missing covers in the background."
                : "Missing covers are already being fetched."
            })
          }
        >
          Fetch missing covers
        </button>
      </div>
      <ManagerForm action={action} />
    </section>
  )
}

export default function EnrichmentAdminPage() {
  return (
    <AdminOnly>
      <Enrichment />
    </AdminOnly>
  )
}
