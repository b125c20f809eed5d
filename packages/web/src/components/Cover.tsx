import { useSignal } from "@preact/signals"

/** A cover image that lazy-loads and falls back to a neutral tile when the album has none. */
export function Cover(props: {
  readonly src: string | null | undefined
  readonly alt: string
  readonly size?: number
}) {
  const failed = useSignal(false)
  const size = props.size ?? 160
  if (props.src === null || props.src === undefined || failed.value)
    return (
      <div
        class="cover placeholder"
        style={{ width: size, height: size }}
        role="img"
        aria-label={props.alt || undefined}
        aria-hidden={props.alt === "" ? "true" : undefined}
      />
    )
  return (
    <img
      class="cover"
      src={props.src}
      alt={props.alt}
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
      onError={() => (failed.value = true)}
    />
  )
}
