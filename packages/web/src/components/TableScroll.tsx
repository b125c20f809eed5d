import type { ComponentChildren } from "preact"

/**
 * A data table's own box. On a phone a wide table scrolls sideways inside it, with columns wide enough to read,
 * instead of squeezing each column to a letter or widening the page. Focusable and named, so a keyboard can scroll
 * it too (axe's scrollable-region rule).
 */
export const TableScroll = ({ label, children }: { readonly label: string; readonly children: ComponentChildren }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys
  <section class="table-scroll" aria-label={label} tabIndex={0}>
    {children}
  </section>
)
