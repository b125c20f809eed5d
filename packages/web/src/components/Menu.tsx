import { useSignal } from "@preact/signals"
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"

export interface MenuItem {
  readonly label: string
  readonly onSelect: () => void
}

/**
 * A small menu button: opens a list of actions, focuses the first, ↑/↓ move, Esc or a click outside closes and
 * gives focus back to the button.
 */
export function Menu(props: {
  readonly label: string
  readonly children: ComponentChildren
  readonly items: () => ReadonlyArray<MenuItem>
}) {
  const open = useSignal(false)
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!open.value) return
    root.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus()
    const outside = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) open.value = false
    }
    document.addEventListener("mousedown", outside)
    return () => document.removeEventListener("mousedown", outside)
  }, [open.value])
  const close = () => {
    open.value = false
    button.current?.focus()
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const items = [...(root.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])]
    const at = items.indexOf(document.activeElement as HTMLElement)
    if (event.key === "Escape") {
      event.preventDefault()
      event.stopPropagation()
      close()
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault()
      const step = event.key === "ArrowDown" ? 1 : -1
      items[(at + step + items.length) % items.length]?.focus()
    }
  }
  return (
    <div class="menu" ref={root}>
      <button
        type="button"
        ref={button}
        class="icon"
        aria-haspopup="menu"
        aria-expanded={open.value}
        aria-label={props.label}
        onClick={() => (open.value = !open.value)}
      >
        {props.children}
      </button>
      {open.value && (
        <div role="menu" aria-label={props.label} tabIndex={-1} onKeyDown={onKeyDown}>
          {props.items().map((item) => (
            <button
              type="button"
              role="menuitem"
              key={item.label}
              onClick={() => {
                close()
                item.onSelect()
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  )
}
