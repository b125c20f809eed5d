import { useSignal } from "@preact/signals"
import { PART_WEIGHTS, type PlaylistDetail, rescoreParts, type SystemVariant, type WeightProfile } from "@tonearm/core"
import { api, errorMessage } from "../../state/api.js"
import "../../styles/reasons.css"
import { TableScroll } from "../../components/TableScroll.js"

const TERMS = Object.keys(PART_WEIGHTS) as ReadonlyArray<keyof typeof PART_WEIGHTS>
const VARIANTS: ReadonlyArray<readonly [SystemVariant, string]> = [
  ["for_you", "For You"],
  ["discover", "Discover"],
  ["new_for_you", "New for you"],
  ["first_listens", "First listens"],
  ["daily_mix:1", "Daily mix 1"],
]

const fixed = (value: number) => (Math.abs(value) < 0.005 ? "0" : value.toFixed(2))

/**
 * How each weight moved a sample listener's list (issue 28 item 3). The admin picks a listener and one of their
 * system playlists; every entry shows its score parts (weight × feature, rule 2) per weight, and the list's share
 * of each weight. Editing the what-if weights re-ranks the same entries (part × new / old weight), so an operator
 * sees which tracks a change would lift or sink before saving it. Only the stored entries are re-ranked: tracks
 * the new weights would bring in appear only after the next rebuild.
 */
export function TuningSample(props: { readonly weights: WeightProfile; readonly usernames: ReadonlyArray<string> }) {
  const username = useSignal("")
  const variant = useSignal<SystemVariant>("for_you")
  const detail = useSignal<PlaylistDetail | undefined>(undefined)
  const message = useSignal("")
  const whatIf = useSignal<Record<string, string>>({})
  const load = async (event: Event) => {
    event.preventDefault()
    message.value = ""
    try {
      detail.value = await api((client) =>
        client.tuning.sample({
          urlParams: { username: username.value || (props.usernames[0] ?? ""), variant: variant.value },
        }),
      )
    } catch (failure) {
      detail.value = undefined
      message.value = `Could not load the list: ${errorMessage(failure)}`
    }
  }
  const edited: WeightProfile = Object.fromEntries(
    Object.entries(props.weights).map(([field, value]) => {
      const text = whatIf.value[field]
      const parsed = text === undefined || text.trim() === "" ? Number.NaN : Number(text)
      return [field, Number.isFinite(parsed) ? parsed : value]
    }),
  ) as WeightProfile
  const entries = (detail.value?.tracks ?? []).filter((entry) => entry.reason !== null)
  const rescored = entries.map((entry) => rescoreParts(entry.reason!.score_parts, props.weights, edited))
  const order = rescored.map((_, at) => at).sort((a, b) => rescored[b]! - rescored[a]! || a - b)
  const rankAfter = new Map(order.map((at, rank) => [at, rank]))
  const shares = TERMS.map((term) =>
    entries.reduce((sum, entry) => sum + Math.abs(entry.reason!.score_parts[term] ?? 0), 0),
  )
  const total = shares.reduce((a, b) => a + b, 0)
  return (
    <section class="admin-card tuning-sample" aria-labelledby="sample-heading">
      <h2 id="sample-heading">How the weights move a listener's list</h2>
      <form onSubmit={load} class="inline-form">
        <label for="sample-listener">Listener</label>
        <select
          id="sample-listener"
          value={username.value}
          onChange={(event) => (username.value = event.currentTarget.value)}
        >
          {props.usernames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <label for="sample-list">List</label>
        <select
          id="sample-list"
          value={variant.value}
          onChange={(event) => (variant.value = event.currentTarget.value as SystemVariant)}
        >
          {VARIANTS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <button type="submit">Show the list</button>
        <span role="status" class="muted">
          {message.value}
        </span>
      </form>
      <fieldset class="what-if">
        <legend>What-if weights (daily mix scope; not saved)</legend>
        {TERMS.map((term) => (
          <span key={term}>
            <label for={`what-if-${term}`}>{PART_WEIGHTS[term]}</label>{" "}
            <input
              id={`what-if-${term}`}
              inputMode="decimal"
              value={whatIf.value[PART_WEIGHTS[term]] ?? String(props.weights[PART_WEIGHTS[term]])}
              onInput={(event) => (whatIf.value = { ...whatIf.value, [PART_WEIGHTS[term]]: event.currentTarget.value })}
            />
          </span>
        ))}
      </fieldset>
      {detail.value !== undefined && (
        <>
          <p class="muted sample-shares">
            Share of the list's score:{" "}
            {TERMS.map((term, k) => `${term} ${total > 0 ? Math.round((100 * shares[k]!) / total) : 0}%`).join(" · ")}
          </p>
          <TableScroll label="Score parts">
            <table class="data-table" aria-label={`Score parts of ${detail.value.name}`}>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">What-if #</th>
                  <th scope="col">Track</th>
                  <th scope="col">Why</th>
                  {TERMS.map((term) => (
                    <th scope="col" key={term}>
                      {term}
                    </th>
                  ))}
                  <th scope="col">What-if score</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry, at) => {
                  const after = rankAfter.get(at)!
                  return (
                    <tr key={entry.entry_id} data-moved={after === at ? "no" : after < at ? "up" : "down"}>
                      <td>{at + 1}</td>
                      <td>
                        {after + 1}
                        {after !== at && ` (${after < at ? "↑" : "↓"}${Math.abs(after - at)})`}
                      </td>
                      <th scope="row">{entry.track.title}</th>
                      <td>{entry.reason!.text}</td>
                      {TERMS.map((term) => (
                        <td key={term}>{fixed(entry.reason!.score_parts[term] ?? 0)}</td>
                      ))}
                      <td>{fixed(rescored[at]!)}</td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </section>
  )
}
