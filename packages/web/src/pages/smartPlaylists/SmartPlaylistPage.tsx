import { useSignal } from "@preact/signals"
import type { SmartCondition, SmartField, SmartRules, SmartSortField } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { plural } from "../../components/format.js"
import { api, errorMessage } from "../../state/api.js"
import { loadPlaylists } from "../../state/playlists.js"
import type { PageProps } from "../../state/router.js"
import { navigate } from "../../state/router.js"
import "../../styles/smartPlaylists.css"

type ValueKind = "text" | "number" | "days" | "range" | "boolean" | "stars"

/** The fields a rule can test, their operators and the kind of value each takes (core `SmartCondition`). */
const FIELDS: Record<
  SmartField,
  { readonly label: string; readonly ops: ReadonlyArray<string>; readonly kind: ValueKind }
> = {
  genre: { label: "Genre", ops: ["is", "is_not", "contains", "not_contains"], kind: "text" },
  artist: { label: "Artist", ops: ["is", "is_not", "contains", "not_contains"], kind: "text" },
  year: { label: "Year", ops: ["is", "gt", "lt", "in_range"], kind: "number" },
  added: { label: "Added", ops: ["in_last_days", "not_in_last_days"], kind: "days" },
  play_count: { label: "Play count", ops: ["is", "gt", "lt"], kind: "number" },
  last_played: { label: "Last played", ops: ["in_last_days", "not_in_last_days"], kind: "days" },
  liked: { label: "Liked", ops: ["is"], kind: "boolean" },
  rating: { label: "Rating", ops: ["is", "gt", "lt"], kind: "stars" },
  format: { label: "Format", ops: ["is", "is_not"], kind: "text" },
}

const OP_LABELS: Record<string, string> = {
  is: "is",
  is_not: "is not",
  contains: "contains",
  not_contains: "does not contain",
  gt: "more than",
  lt: "less than",
  in_range: "between",
  in_last_days: "in the last (days)",
  not_in_last_days: "not in the last (days)",
}

const SORTS: ReadonlyArray<readonly [SmartSortField, string]> = [
  ["random", "Random"],
  ["title", "Title"],
  ["artist", "Artist"],
  ["year", "Year"],
  ["added", "Date added"],
  ["play_count", "Play count"],
  ["last_played", "Last played"],
  ["rating", "Rating"],
]

/** One condition as the form holds it: text fields, turned into a `SmartCondition` for the server. */
interface Draft {
  readonly key: number
  readonly field: SmartField
  readonly op: string
  readonly value: string
  readonly to: string
}

let keys = 0
const draftOf = (condition?: SmartCondition): Draft => {
  if (condition === undefined) return { key: ++keys, field: "genre", op: "is", value: "", to: "" }
  const value = condition.value
  if (typeof value === "object")
    return { key: ++keys, field: condition.field, op: condition.op, value: String(value.from), to: String(value.to) }
  return { key: ++keys, field: condition.field, op: condition.op, value: String(value), to: "" }
}

const conditionOf = (draft: Draft): SmartCondition => {
  const kind = FIELDS[draft.field].kind
  const value =
    draft.op === "in_range"
      ? { from: Number(draft.value), to: Number(draft.to) }
      : kind === "text"
        ? draft.value
        : kind === "boolean"
          ? draft.value !== "false"
          : Number(draft.value)
  return { field: draft.field, op: draft.op, value } as SmartCondition
}

/** The server's reason for refusing rules, without the schema around it: the last line of the parse error. */
const reasonOf = (failure: unknown) => {
  const lines = errorMessage(failure)
    .split("\n")
    .map((line) => line.replace(/^[\s└├│─]+/, "").trim())
    .filter((line) => line !== "")
  return lines[lines.length - 1] ?? "these rules are not valid"
}

/**
 * A smart playlist's rules (issue 28): conditions on genre, year, artist, when added, plays, likes, rating and
 * format, all or any of them, a sort and a limit; the count they match now updates as you edit. Saving (and
 * Refresh) fills the playlist; the nightly run keeps it current.
 */
export default function SmartPlaylistPage(props: PageProps) {
  const id = props.params.id
  const name = useSignal("")
  const match = useSignal<"all" | "any">("all")
  const drafts = useSignal<ReadonlyArray<Draft>>([draftOf()])
  const sortField = useSignal<SmartSortField>("random")
  const sortOrder = useSignal<"asc" | "desc">("asc")
  const limit = useSignal("50")
  const preview = useSignal("")
  const error = useSignal("")
  const status = useSignal("")
  const loaded = useSignal(id === undefined)

  useEffect(() => {
    if (id === undefined) return
    const controller = new AbortController()
    api((client) => client.smartPlaylists.get({ path: { id: id as never } }), controller.signal).then(
      (smart) => {
        name.value = smart.playlist.name
        match.value = smart.rules.match
        drafts.value = smart.rules.conditions.map(draftOf)
        sortField.value = smart.rules.sort.field
        sortOrder.value = smart.rules.sort.order
        limit.value = String(smart.rules.limit)
        loaded.value = true
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) error.value = errorMessage(failure)
      },
    )
    return () => controller.abort()
  }, [id])

  const rules = (): SmartRules => ({
    match: match.value,
    conditions: drafts.value.map(conditionOf),
    sort: { field: sortField.value, order: sortOrder.value },
    limit: Number(limit.value),
  })
  const rulesKey = JSON.stringify(rules())

  // The live count: asked again 300 ms after the last change; rules the server refuses say why.
  useEffect(() => {
    if (!loaded.value) return
    // An empty value is the listener still typing, not a schema failure to quote back at them.
    if (
      drafts.value.some((draft) => draft.value.trim() === "" || (draft.op === "in_range" && draft.to.trim() === ""))
    ) {
      preview.value = "Give every condition a value to see how many tracks match."
      return
    }
    const controller = new AbortController()
    const timer = setTimeout(() => {
      api((client) => client.smartPlaylists.preview({ payload: { rules: rules() } }), controller.signal).then(
        (answer) => {
          preview.value = `${plural(answer.matching, "track")} match · the playlist holds ${answer.count}`
        },
        (failure: unknown) => {
          if (!controller.signal.aborted) preview.value = `Not yet valid: ${reasonOf(failure)}`
        },
      )
    }, 300)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [rulesKey, loaded.value])

  const change = (key: number, patch: Partial<Draft>) => {
    drafts.value = drafts.value.map((draft) => {
      if (draft.key !== key) return draft
      const next = { ...draft, ...patch }
      // A new field starts on its first operator with an empty value.
      if (patch.field !== undefined && patch.field !== draft.field)
        return {
          ...next,
          op: FIELDS[patch.field].ops[0]!,
          value: FIELDS[patch.field].kind === "boolean" ? "true" : "",
          to: "",
        }
      return next
    })
  }

  const save = async (event: Event) => {
    event.preventDefault()
    error.value = ""
    status.value = ""
    try {
      if (id === undefined) {
        const created = await api((client) =>
          client.smartPlaylists.create({ payload: { name: name.value, rules: rules() } }),
        )
        await loadPlaylists()
        navigate(`/smart-playlists/${created.id}`)
      } else {
        const saved = await api((client) =>
          client.smartPlaylists.update({ path: { id: id as never }, payload: { name: name.value, rules: rules() } }),
        )
        status.value = `Saved: ${plural(saved.playlist.track_count, "track")}`
        await loadPlaylists()
      }
    } catch (failure) {
      error.value = errorMessage(failure)
    }
  }

  const refresh = async () => {
    if (id === undefined) return
    error.value = ""
    try {
      const refreshed = await api((client) => client.smartPlaylists.refresh({ path: { id: id as never } }))
      status.value = `Refreshed: ${plural(refreshed.playlist.track_count, "track")}`
      await loadPlaylists()
    } catch (failure) {
      error.value = errorMessage(failure)
    }
  }

  return (
    <section class="smart-playlist">
      <h1>{id === undefined ? "New smart playlist" : "Smart playlist rules"}</h1>
      {!loaded.value && error.value === "" && <p class="muted">Loading…</p>}
      <form onSubmit={save} aria-label="Smart playlist rules">
        <label class="smart-field">
          Name
          <input
            name="name"
            required
            maxLength={200}
            value={name.value}
            onInput={(e) => (name.value = e.currentTarget.value)}
          />
        </label>
        <label class="smart-field">
          Match
          <select value={match.value} onChange={(e) => (match.value = e.currentTarget.value as "all" | "any")}>
            <option value="all">all of these conditions</option>
            <option value="any">any of these conditions</option>
          </select>
        </label>
        <ul class="smart-conditions" aria-label="Conditions">
          {drafts.value.map((draft, index) => {
            const spec = FIELDS[draft.field]
            const n = index + 1
            return (
              <li key={draft.key} class="smart-condition">
                <select
                  aria-label={`Condition ${n} field`}
                  value={draft.field}
                  onChange={(e) => change(draft.key, { field: e.currentTarget.value as SmartField })}
                >
                  {Object.entries(FIELDS).map(([field, f]) => (
                    <option key={field} value={field}>
                      {f.label}
                    </option>
                  ))}
                </select>
                <select
                  aria-label={`Condition ${n} operator`}
                  value={draft.op}
                  onChange={(e) => change(draft.key, { op: e.currentTarget.value })}
                >
                  {spec.ops.map((op) => (
                    <option key={op} value={op}>
                      {OP_LABELS[op]}
                    </option>
                  ))}
                </select>
                {spec.kind === "boolean" ? (
                  <select
                    aria-label={`Condition ${n} value`}
                    value={draft.value === "" ? "true" : draft.value}
                    onChange={(e) => change(draft.key, { value: e.currentTarget.value })}
                  >
                    <option value="true">yes</option>
                    <option value="false">no</option>
                  </select>
                ) : (
                  <input
                    aria-label={`Condition ${n} value`}
                    type={spec.kind === "text" ? "text" : "number"}
                    inputMode={spec.kind === "text" ? "text" : "numeric"}
                    value={draft.value}
                    onInput={(e) => change(draft.key, { value: e.currentTarget.value })}
                  />
                )}
                {draft.op === "in_range" && (
                  <input
                    aria-label={`Condition ${n} up to`}
                    type="number"
                    inputMode="numeric"
                    value={draft.to}
                    onInput={(e) => change(draft.key, { to: e.currentTarget.value })}
                  />
                )}
                <button
                  type="button"
                  aria-label={`Remove condition ${n}`}
                  onClick={() => (drafts.value = drafts.value.filter((d) => d.key !== draft.key))}
                >
                  Remove
                </button>
              </li>
            )
          })}
        </ul>
        {drafts.value.length === 0 && <p class="muted">No conditions: every track of your library.</p>}
        <button type="button" onClick={() => (drafts.value = [...drafts.value, draftOf()])}>
          Add condition
        </button>
        <div class="smart-sort">
          <label class="smart-field">
            Sort by
            <select
              value={sortField.value}
              onChange={(e) => (sortField.value = e.currentTarget.value as SmartSortField)}
            >
              {SORTS.map(([field, label]) => (
                <option key={field} value={field}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label class="smart-field">
            Order
            <select
              value={sortOrder.value}
              onChange={(e) => (sortOrder.value = e.currentTarget.value as "asc" | "desc")}
            >
              <option value="asc">ascending</option>
              <option value="desc">descending</option>
            </select>
          </label>
          <label class="smart-field">
            Limit
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={1000}
              value={limit.value}
              onInput={(e) => (limit.value = e.currentTarget.value)}
            />
          </label>
        </div>
        <p class="smart-preview" aria-live="polite" data-testid="smart-preview">
          {preview.value}
        </p>
        <div class="actions">
          <button type="submit" class="primary">
            Save
          </button>
          {id !== undefined && (
            <button type="button" onClick={refresh}>
              Refresh
            </button>
          )}
          {id !== undefined && <a href={`/playlists/${id}`}>Open playlist</a>}
        </div>
        <p role="status">{status.value}</p>
        <p role="alert" class="error">
          {error.value}
        </p>
      </form>
    </section>
  )
}
