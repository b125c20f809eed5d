import { useSignal } from "@preact/signals"
import { type CurvePoint, type RebuildRun, TUNING_SCOPES, type TuningScope, type TuningView } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural, when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"
import { TuningSample } from "./TuningSample.js"

const SCOPE_TITLE: Record<TuningScope, string> = {
  radio: "Radio weights",
  daily_mix: "Daily mix weights",
  taste: "Taste profile",
  discovery: "Discovery",
}

type Values = Readonly<Record<string, unknown>>

/** A completion curve as text: `x,y` pairs separated by spaces (`0,-1 0.25,-0.4 …`). */
const curveText = (points: ReadonlyArray<CurvePoint>) => points.map((point) => `${point.x},${point.y}`).join(" ")
const parseCurve = (text: string): unknown => {
  const points = text
    .trim()
    .split(/\s+/)
    .map((pair) => pair.split(",").map(Number))
  return points.every((pair) => pair.length === 2 && pair.every(Number.isFinite))
    ? points.map(([x, y]) => ({ x, y }))
    : text // the server answers why it is not a curve
}
const asText = (value: unknown) =>
  Array.isArray(value) ? curveText(value as ReadonlyArray<CurvePoint>) : String(value as number)
const fromText = (field: string, text: string): unknown =>
  field === "completion_curve" ? parseCurve(text) : text.trim() === "" ? text : Number(text)

/** One scope: each field with its shipped value; save sends only what changed, the server validates. */
function ScopeEditor(props: {
  readonly scope: TuningScope
  readonly current: Values
  readonly shipped: Values
  readonly onSaved: () => void
}) {
  const { scope, current, shipped } = props
  const drafts = useSignal<Record<string, string>>({})
  const action = useAction(props.onSaved)
  useEffect(() => {
    drafts.value = Object.fromEntries(Object.entries(current).map(([field, value]) => [field, asText(value)]))
  }, [JSON.stringify(current)])
  const save = async (event: Event) => {
    event.preventDefault()
    const changes = Object.fromEntries(
      Object.entries(drafts.value)
        .filter(([field, text]) => text !== asText(current[field]))
        .map(([field, text]) => [field, fromText(field, text)]),
    )
    if (Object.keys(changes).length === 0) return action.say("Nothing changed.")
    await action.run(() => api((client) => client.tuning.patch({ payload: { scope, changes } })), {
      done: `Saved ${Object.keys(changes).join(", ")}.`,
    })
  }
  const reset = () =>
    action.run(() => api((client) => client.tuning.reset({ payload: { scope } })), {
      done: () => {
        // The scope's inputs show the shipped values at once, dropping any refused draft (not only after the reload).
        drafts.value = Object.fromEntries(Object.entries(shipped).map(([field, value]) => [field, asText(value)]))
        return "Reset to the shipped values."
      },
    })
  const tuned = Object.keys(current).filter((field) => asText(current[field]) !== asText(shipped[field]))
  return (
    <form
      class="admin-card tuning-scope"
      onSubmit={save}
      noValidate
      aria-labelledby={`scope-${scope}`}
      data-scope={scope}
    >
      <h2 id={`scope-${scope}`}>
        {SCOPE_TITLE[scope]} <span class="muted">({scope})</span>
      </h2>
      <TableScroll label={`${SCOPE_TITLE[scope]} fields`}>
        <table class="data-table">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Current</th>
              <th scope="col">Shipped</th>
            </tr>
          </thead>
          <tbody>
            {Object.keys(current).map((field) => (
              <tr key={field} class={tuned.includes(field) ? "tuned" : undefined}>
                <th scope="row">
                  <label for={`${scope}-${field}`}>{field}</label>
                </th>
                <td>
                  <input
                    id={`${scope}-${field}`}
                    aria-label={`${scope} ${field}`}
                    inputMode="decimal"
                    size={field === "completion_curve" ? 36 : 8}
                    value={drafts.value[field] ?? asText(current[field])}
                    onInput={(event) => (drafts.value = { ...drafts.value, [field]: event.currentTarget.value })}
                  />
                  {tuned.includes(field) && <span class="badge"> tuned</span>}
                </td>
                <td class="muted">{asText(shipped[field])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <div class="actions">
        <button type="submit" class="primary">
          Save {scope}
        </button>
        <button type="button" onClick={reset} disabled={tuned.length === 0}>
          Reset {scope} to shipped
        </button>
        <span role="status" class="muted">
          {action.failed ? "" : action.message.value}
        </span>
      </div>
      {action.failed && (
        <p role="alert" class="error">
          {action.message.value}
        </p>
      )}
    </form>
  )
}

/** Starting the nightly rebuild now (one user or everyone) and following its run. */
function Rebuild() {
  const run = useSignal<RebuildRun | undefined>(undefined)
  const action = useAction()
  const message = action.message
  const username = useSignal("")
  const running = run.value?.state === "running"
  useEffect(() => {
    if (!running || run.value === undefined) return
    const id = run.value.id
    const timer = setInterval(() => {
      api((client) => client.rebuilds.status({ path: { id } })).then(
        (next) => (run.value = next),
        (failure: unknown) => (message.value = errorMessage(failure)),
      )
    }, 1000)
    return () => clearInterval(timer)
  }, [running, run.value?.id])
  const start = (all: boolean) =>
    action.run(
      async () => {
        const name = username.value.trim()
        const started = await api((client) =>
          client.rebuilds.start({ payload: all || name === "" ? { all: true } : { username: name } }),
        )
        run.value = await api((client) => client.rebuilds.status({ path: { id: started.id } }))
      },
      { done: "" },
    )
  const state = run.value
  return (
    <section class="admin-card" aria-labelledby="rebuild-heading">
      <h2 id="rebuild-heading">Rebuild recommendations now</h2>
      <p class="muted">The same rebuild as the nightly run: taste profiles and every system playlist.</p>
      <div class="actions">
        <label>
          Username (empty: everyone)
          <input value={username.value} onInput={(event) => (username.value = event.currentTarget.value)} />
        </label>
        <button type="button" class="primary" disabled={running} onClick={() => start(false)}>
          Start rebuild
        </button>
      </div>
      {message.value !== "" && <p role="alert">{message.value}</p>}
      {state !== undefined && (
        <p role="status" class="rebuild-status" data-state={state.state}>
          Rebuild {state.state}: {state.done} of {plural(state.total, "user")} done
          {state.failed > 0 ? `, ${state.failed} failed` : ""} · started {when(state.started_at)}
          {state.finished_at !== null ? ` · finished ${when(state.finished_at)}` : ""}
        </p>
      )}
    </section>
  )
}

const showValue = (value: unknown) => (Array.isArray(value) ? curveText(value as never) : JSON.stringify(value))

/** Admin: recommendation tuning (current vs shipped, edit, reset per scope), its audit list, and a rebuild. */
function Tuning() {
  const tuning = useLoad((signal) => api((client) => client.tuning.get(), signal), [])
  const audit = useLoad((signal) => api((client) => client.tuning.audit(), signal), [])
  const users = useLoad((signal) => api((client) => client.adminUsers.list(), signal), [])
  const names = new Map(users.data?.map((user) => [user.id as string, user.username]) ?? [])
  const saved = () => {
    tuning.reload()
    audit.reload()
  }
  const data: TuningView | undefined = tuning.data
  return (
    <div>
      <h1>Recommendation tuning</h1>
      <p class="muted">Changes apply to the next rebuild or radio, with no restart. Every change is audited.</p>
      <Status loaded={tuning} />
      {data !== undefined &&
        TUNING_SCOPES.map((scope) => (
          <ScopeEditor
            key={scope}
            scope={scope}
            current={data.scopes[scope].current as unknown as Values}
            shipped={data.scopes[scope].shipped as unknown as Values}
            onSaved={saved}
          />
        ))}
      {data !== undefined && (
        <TuningSample
          weights={data.scopes.daily_mix.current}
          usernames={users.data?.map((user) => user.username) ?? []}
        />
      )}
      <Rebuild />
      <section class="admin-card" aria-labelledby="audit-heading">
        <h2 id="audit-heading">Audit</h2>
        <Status loaded={audit} />
        {audit.data !== undefined &&
          (audit.data.length === 0 ? (
            <p class="muted">No changes yet.</p>
          ) : (
            <TableScroll label="Tuning audit table">
              <table class="data-table" aria-label="Tuning audit">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Scope</th>
                    <th scope="col">By</th>
                    <th scope="col">Changes</th>
                  </tr>
                </thead>
                <tbody>
                  {audit.data.map((row) => (
                    <tr key={row.id}>
                      <td>{when(row.changed_at)}</td>
                      <td>{row.scope}</td>
                      <td>{row.changed_by === null ? "(deleted)" : (names.get(row.changed_by) ?? row.changed_by)}</td>
                      <td>
                        <ul class="diff">
                          {row.diff.map((difference) => (
                            <li key={difference.field}>
                              {difference.field}: {showValue(difference.old)} → {showValue(difference.new)}
                            </li>
                          ))}
                        </ul>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          ))}
      </section>
    </div>
  )
}

export default function TuningPage() {
  return (
    <AdminOnly>
      <Tuning />
    </AdminOnly>
  )
}
