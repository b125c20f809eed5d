import { signal, useSignal, useSignalEffect } from "@preact/signals"
import type { ComponentType } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { Icon, type IconName } from "../components/Icon.js"
import { LibrarySwitcher } from "../components/LibrarySwitcher.js"
import { api } from "../state/api.js"
import { startEvents, stopEvents } from "../state/events.js"
import { loadLibraries } from "../state/libraries.js"
import { loadLikes } from "../state/likes.js"
import { sessionAfterFailure } from "../state/offline.js"
import { flushOffline, resetPlayer } from "../state/player.js"
import { loadPlaylists } from "../state/playlists.js"
import { location$, matchPath, navigate, type PageProps, pathname } from "../state/router.js"
import { session } from "../state/session.js"
import { isPhone } from "../state/viewport.js"
import { HelpOverlay, helpOpen, installShortcuts } from "./keyboard.js"
import { LyricsPanel } from "./LyricsPanel.js"
import { MiniPlayer, NowPlaying } from "./NowPlaying.js"
import { OfflineBanner } from "./OfflineBanner.js"
import { PlaybackNotice } from "./PlaybackNotice.js"
import { PlayerBar } from "./PlayerBar.js"
import { notFoundRoute, type RouteDef, routes } from "./routes.js"
import { SignIn } from "./SignIn.js"

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

/** On a phone: the full navigation is a drawer the bottom bar's Menu button opens. */
const menuOpen = signal(false)
const MENU_BUTTON_ID = "menu-button"
/** Whether closing gives the focus back to the Menu button (not after a link in the drawer was followed). */
let refocusMenu = false
const closeMenu = () => {
  refocusMenu = true
  menuOpen.value = false
}

/** The phone's bottom navigation: the everyday destinations within thumb's reach, and the menu for the rest. */
const TABS: ReadonlyArray<{ readonly path: string; readonly label: string; readonly icon: IconName }> = [
  { path: "/", label: "Home", icon: "home" },
  { path: "/search", label: "Search", icon: "search" },
  { path: "/albums", label: "Albums", icon: "album" },
  { path: "/likes", label: "Likes", icon: "heartOutline" },
]

function TabBar() {
  const here = pathname.value
  return (
    <nav class="tabbar" aria-label="Main">
      <ul>
        {TABS.map((tab) => (
          <li key={tab.path}>
            <a
              href={tab.path}
              aria-current={here === tab.path ? "page" : undefined}
              class={tab.path !== "/" && here.startsWith(`${tab.path}/`) ? "within" : undefined}
            >
              <Icon name={tab.icon} />
              <span>{tab.label}</span>
            </a>
          </li>
        ))}
        <li>
          <button
            type="button"
            id={MENU_BUTTON_ID}
            aria-expanded={menuOpen.value}
            aria-controls="nav-drawer"
            onClick={() => (menuOpen.value = !menuOpen.value)}
          >
            <Icon name="menu" />
            <span>Menu</span>
          </button>
        </li>
      </ul>
    </nav>
  )
}

function Nav() {
  const phone = isPhone.value
  const drawer = phone && menuOpen.value
  const self = useRef<HTMLElement>(null)
  // A link followed from the drawer closes it; so does leaving the phone layout.
  const path = pathname.value
  useEffect(() => {
    refocusMenu = false
    menuOpen.value = false
  }, [path, phone])
  useEffect(() => {
    if (!drawer) return
    self.current?.querySelector<HTMLElement>("a, button")?.focus()
    // The page behind the open drawer is out of reach of Tab and of screen readers.
    const behind = Array.from(document.querySelectorAll<HTMLElement>(".layout > :not(.sidebar):not(.drawer-backdrop)"))
    for (const element of behind) element.inert = true
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return
      event.preventDefault()
      closeMenu()
    }
    // A tap on the dimmed page beside the drawer closes it.
    const onClick = (event: MouseEvent) => {
      if ((event.target as Element | null)?.classList?.contains("drawer-backdrop")) closeMenu()
    }
    document.addEventListener("keydown", onKey)
    document.addEventListener("click", onClick)
    return () => {
      for (const element of behind) element.inert = false
      document.removeEventListener("keydown", onKey)
      document.removeEventListener("click", onClick)
      // Only now is the Menu button focusable again.
      if (refocusMenu) document.getElementById(MENU_BUTTON_ID)?.focus()
    }
  }, [drawer])
  const groups = new Map<string, Array<RouteDef>>()
  for (const route of routes) {
    if (route.nav === undefined || (route.admin && !session.value?.is_admin)) continue
    groups.set(route.nav, [...(groups.get(route.nav) ?? []), route])
  }
  const signOut = async () => {
    await api((client) => client.auth.logout()).catch(() => undefined)
    resetPlayer()
    // Signed in through OpenID Connect: end the provider's session too (it comes back to /).
    if (document.cookie.split("; ").some((cookie) => cookie.startsWith("tonearm_oidc_session="))) {
      window.location.assign("/api/auth/oidc/logout")
      return
    }
    session.value = null
    navigate("/")
  }
  return (
    <nav
      class={`sidebar${drawer ? " open" : ""}`}
      aria-label={phone ? "Menu" : "Main"}
      id="nav-drawer"
      ref={self}
      hidden={phone && !drawer}
    >
      {phone && (
        <button type="button" class="icon drawer-close" aria-label="Close menu" onClick={closeMenu}>
          <Icon name="close" />
        </button>
      )}
      <a class="brand" href="/">
        Tonearm
      </a>
      <LibrarySwitcher />
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
      (error: unknown) => {
        // Offline, the last user of this browser opens the app on its downloads.
        session.value = sessionAfterFailure(error)
      },
    )
  }, [])
  useSignalEffect(() => {
    if (session.value) {
      startEvents()
      void loadLikes().catch(() => undefined)
      void loadPlaylists().catch(() => undefined)
      void loadLibraries().catch(() => undefined)
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
      {isPhone.value && menuOpen.value && <div class="drawer-backdrop" />}
      <Outlet />
      {isPhone.value ? <MiniPlayer /> : <PlayerBar />}
      {isPhone.value && <TabBar />}
      <NowPlaying />
      <LyricsPanel />
      <HelpOverlay />
      <OfflineBanner />
      <PlaybackNotice />
    </div>
  )
}
