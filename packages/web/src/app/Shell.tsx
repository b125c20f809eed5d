import { useSignal, useSignalEffect } from "@preact/signals"
import type { ComponentType } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { api } from "./api.js"
import { startEvents, stopEvents } from "./events.js"
import { HelpOverlay, helpOpen, installShortcuts } from "./keyboard.js"
import { LyricsPanel } from "./LyricsPanel.js"
import { loadLikes } from "./likes.js"
import { PlayerBar } from "./PlayerBar.js"
import { flushOffline, resetPlayer } from "./player.js"
import { loadPlaylists } from "./playlists.js"
import { location$, matchPath, navigate, pathname } from "./router.js"
import { notFoundRoute, type PageProps, type RouteDef, routes } from "./routes.js"
import { SignIn } from "./SignIn.js"
import { session } from "./session.js"

const loaded = new Map<RouteDef, ComponentType<PageProps>>()

const resolve = (path: string) => {
  for (const route of routes) {
    const params = matchPath(route.path, path)
    if (params !== undefined) return { route, params }
  }
  return { route: notFoundRoute, params: {} }
}

/** The routed page: its module loads on first visit; focus moves to the page heading for screen readers. */
function Outlet() {
  const { route, params } = resolve(pathname.value)
  const page = useSignal<ComponentType<PageProps> | undefined>(loaded.get(route))
  const failed = useSignal<string | undefined>(undefined)
  const main = useRef<HTMLElement>(null)
  useEffect(() => {
    document.title = `${route.title} · Tonearm`
    const known = loaded.get(route)
    if (known !== undefined) {
      page.value = known
      return
    }
    page.value = undefined
    let cancelled = false
    route.load().then(
      (module) => {
        loaded.set(route, module.default)
        if (!cancelled) page.value = module.default
      },
      (error: unknown) => {
        if (!cancelled) failed.value = String(error)
      },
    )
    return () => {
      cancelled = true
    }
  }, [route])
  useEffect(() => {
    main.current?.focus({ preventScroll: true })
    window.scrollTo(0, 0)
  }, [location$.value.pathname])
  const Page = page.value
  return (
    <main id="main" ref={main} tabIndex={-1} aria-busy={Page === undefined}>
      {failed.value !== undefined ? (
        <p role="alert">This page could not load: {failed.value}</p>
      ) : Page === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        <Page key={pathname.value} params={params} />
      )}
    </main>
  )
}

function Nav() {
  const groups = new Map<string, Array<RouteDef>>()
  for (const route of routes) {
    if (route.nav === undefined || (route.admin && !session.value?.is_admin)) continue
    groups.set(route.nav, [...(groups.get(route.nav) ?? []), route])
  }
  const signOut = async () => {
    await api((client) => client.auth.logout()).catch(() => undefined)
    resetPlayer()
    session.value = null
    navigate("/")
  }
  return (
    <nav class="sidebar" aria-label="Main">
      <a class="brand" href="/">
        Tonearm
      </a>
      {[...groups].map(([group, items]) => (
        <div class="nav-group" key={group}>
          <h2>{group}</h2>
          <ul>
            {items.map((route) => (
              <li key={route.path}>
                <a href={route.path} aria-current={pathname.value === route.path ? "page" : undefined}>
                  {route.title}
                </a>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <div class="nav-foot">
        <span class="muted">Signed in as {session.value?.username}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
        <button type="button" class="link" onClick={() => (helpOpen.value = true)}>
          Keyboard shortcuts (?)
        </button>
      </div>
    </nav>
  )
}

export function Shell() {
  useEffect(() => {
    installShortcuts()
    api((client) => client.me.get()).then(
      (me) => {
        session.value = { id: me.id, username: me.username, is_admin: me.is_admin }
      },
      () => {
        session.value = null
      },
    )
  }, [])
  useSignalEffect(() => {
    if (session.value) {
      startEvents()
      void loadLikes().catch(() => undefined)
      void loadPlaylists().catch(() => undefined)
      void flushOffline()
    } else {
      // Signed out here, or the session was revoked elsewhere (a 401 anywhere lands here): stop the music too.
      stopEvents()
      resetPlayer()
    }
  })
  if (session.value === undefined) return <p class="muted boot">Loading…</p>
  if (session.value === null) return <SignIn />
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Nav />
      <Outlet />
      <PlayerBar />
      <LyricsPanel />
      <HelpOverlay />
    </div>
  )
}
