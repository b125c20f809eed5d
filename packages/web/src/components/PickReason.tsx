import { useSignal } from "@preact/signals"
import type { PickReason } from "@tonearm/core"
import "../styles/reasons.css"

/** The score parts' names as an operator or listener reads them (rule 2's weighted terms). */
const PART_LABEL: Record<string, string> = {
  taste: "taste match",
  similarity: "similarity",
  context: "time of day",
  like: "likes",
  novelty: "novelty",
  popularity: "popularity",
  recency: "played lately",
  skips: "skips",
  plays: "plays",
}

/** The parts that moved the pick, largest first (zeros left out). */
export const partsOf = (reason: PickReason): ReadonlyArray<readonly [string, number]> =>
  Object.entries(reason.score_parts)
    .filter(([, value]) => value !== 0)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))

const signed = (value: number) => `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(2)}`

/**
 * Why a system playlist entry is there (issue 28): a small "?" button beside the track that shows the reason on
 * hover or focus (desktop) and on tap (phone, where it stays open until tapped again). The line sits in the row's
 * flow below the track, so it never widens the page.
 */
export function PickReasonButton(props: { readonly reason: PickReason; readonly title: string; readonly id: string }) {
  const hovered = useSignal(false)
  const pinned = useSignal(false)
  const open = hovered.value || pinned.value
  const detailId = `reason-${props.id}`
  return (
    <>
      <button
        type="button"
        class="icon reason-button"
        aria-label={`Why ${props.title}?`}
        aria-expanded={open}
        aria-controls={detailId}
        data-reason-kind={props.reason.kind}
        onMouseEnter={() => (hovered.value = true)}
        onMouseLeave={() => (hovered.value = false)}
        onFocus={() => (hovered.value = true)}
        onBlur={() => (hovered.value = false)}
        onClick={() => {
          pinned.value = !pinned.value
          if (!pinned.value) hovered.value = false
        }}
      >
        ?
      </button>
      <div class="reason-detail" id={detailId} role="note" hidden={!open}>
        <strong>{props.reason.text}</strong>
        {partsOf(props.reason).length > 0 && (
          <span class="muted">
            {" "}
            ·{" "}
            {partsOf(props.reason)
              .slice(0, 4)
              .map(([name, value]) => `${PART_LABEL[name] ?? name} ${signed(value)}`)
              .join(", ")}
          </span>
        )}
      </div>
    </>
  )
}
