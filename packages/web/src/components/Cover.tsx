import { useSignal } from "@preact/signals"
import { Icon, type IconName } from "./Icon.js"

/** What the art is of: it picks the placeholder icon (a disc, a note, a person, a playlist) and the shape. */
export type CoverKind = "album" | "track" | "artist" | "playlist"

const PLACEHOLDER_ICON: Record<CoverKind, IconName> = {
  album: "album",
  track: "note",
  artist: "person",
  playlist: "playlist",
}

/**
 * Art that lazy-loads. With no art (`src` null) or art that fails to load (a 404, a decode error) it shows a
 * placeholder icon instead, never a grey box or a broken image. Artists are round. The size is the CSS
 * variable `--cover`, so a stylesheet rule (a phone layout) can still resize it.
 */
export function Cover(props: {
  readonly src: string | null | undefined
  readonly alt: string
  readonly size?: number
  readonly kind?: CoverKind
}) {
  // The src that failed, not a flag: the same Cover shown with new art (the player bar) tries it again.
  const failed = useSignal<string | undefined>(undefined)
  const size = props.size ?? 160
  const kind = props.kind ?? "album"
  const shape = `cover ${kind}`
  const style = { "--cover": `${size}px` }
  if (props.src === null || props.src === undefined || props.src === "" || failed.value === props.src)
    return props.alt === "" ? (
      <div class={`${shape} placeholder`} style={style} data-placeholder={kind} aria-hidden="true">
        <Icon name={PLACEHOLDER_ICON[kind]} />
      </div>
    ) : (
      <div class={`${shape} placeholder`} style={style} data-placeholder={kind} role="img" aria-label={props.alt}>
        <Icon name={PLACEHOLDER_ICON[kind]} />
      </div>
    )
  const src = props.src
  return (
    <img
      class={shape}
      style={style}
      src={src}
      alt={props.alt}
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
      onError={() => (failed.value = src)}
    />
  )
}
