import { computed, signal } from "@preact/signals"

/**
 * A small History-API router: the address is a signal, `navigate` pushes, same-origin `<a href>` clicks are
 * intercepted, back/forward update the signal. Routes match `/albums/:id`-style patterns (shell/routes.tsx).
 */
/**
 * What every page receives: the `:name` parameters of its path (query parameters come from `query`). Here, below
 * both the pages and the route registry, so a page can name it without importing the shell.
 */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>
}

export const location$ = signal(new URL(window.location.href))
export const pathname = computed(() => location$.value.pathname)
export const query = computed(() => location$.value.searchParams)

export const navigate = (to: string, options: { readonly replace?: boolean } = {}) => {
  const url = new URL(to, window.location.href)
  if (url.href === window.location.href) return
  if (options.replace) history.replaceState(null, "", url)
  else history.pushState(null, "", url)
  location$.value = url
}

addEventListener("popstate", () => {
  location$.value = new URL(window.location.href)
})

document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return
  const anchor = (event.target as Element | null)?.closest?.("a")
  if (anchor === null || anchor === undefined || anchor.target !== "" || anchor.hasAttribute("download")) return
  const url = new URL(anchor.href, window.location.href)
  if (url.origin !== window.location.origin || /^\/(api|rest|docs|forgot-password|reset-password)\b/.test(url.pathname))
    return
  event.preventDefault()
  navigate(url.pathname + url.search + url.hash)
})

/** `/albums/:id` against `/albums/42` → `{ id: "42" }`, or undefined when it does not match. */
export const matchPath = (pattern: string, path: string): Record<string, string> | undefined => {
  const names: Array<string> = []
  const regex = new RegExp(
    `^${pattern.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
      names.push(name)
      return "([^/]+)"
    })}/?$`,
  )
  const match = regex.exec(path)
  if (match === null) return undefined
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]))
}
