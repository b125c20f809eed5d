import { type LikeKind, liked, toggleLike } from "../state/likes.js"
import { Icon } from "./Icon.js"

/** ♥ toggle for a track, album or artist; the state follows the event stream, so other tabs agree. */
export function LikeButton(props: { readonly kind: LikeKind; readonly id: string; readonly label: string }) {
  const on = liked[props.kind].value.has(props.id)
  return (
    <button
      type="button"
      class={`icon like${on ? " on" : ""}`}
      aria-pressed={on}
      aria-label={`Like ${props.label}`}
      data-testid={`like-${props.kind}-${props.id}`}
      onClick={() => void toggleLike(props.kind, props.id).catch(() => undefined)}
    >
      <Icon name={on ? "heart" : "heartOutline"} />
    </button>
  )
}
