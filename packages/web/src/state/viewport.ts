import { signal } from "@preact/signals"

/** The phone layout's breakpoint: the same width as the stylesheet's `@media (max-width: 720px)`. */
const PHONE_QUERY = "(max-width: 720px)"

const phoneMedia = typeof matchMedia === "function" ? matchMedia(PHONE_QUERY) : undefined

/**
 * Whether the phone layout is on (bottom navigation, mini player, full-screen Now Playing). The stylesheet does
 * the layout; this only picks which markup to render where a phone needs different controls, not just a
 * different arrangement of the same ones.
 */
export const isPhone = signal(phoneMedia?.matches ?? false)
phoneMedia?.addEventListener("change", (event) => {
  isPhone.value = event.matches
})
