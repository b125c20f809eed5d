import type { ComponentType } from "preact"
import type { PageProps } from "../state/router.js"

export interface RouteDef {
  /** `/albums/:id`-style pattern; the first match wins. */
  readonly path: string
  readonly title: string
  /** The page module, loaded on first visit (its own chunk): `default` export is the page component. */
  readonly load: () => Promise<{ readonly default: ComponentType<PageProps> }>
  /** Shown in the side navigation under this group, when set. */
  readonly nav?: "Listen" | "Library" | "You" | "Admin"
  /** Admin-only pages are hidden from the navigation of other users (the server still enforces 403). */
  readonly admin?: boolean
}

/**
 * THE route registry. Adding a page is one line here plus its module under src/pages/<area>/ (see README.md).
 * Web-B owns recommendations/** and admin/**, moderation owns moderation/**.
 */
export const routes: ReadonlyArray<RouteDef> = [
  { path: "/", title: "Home", nav: "Listen", load: () => import("../pages/home/HomePage.js") },
  { path: "/search", title: "Search", nav: "Listen", load: () => import("../pages/search/SearchPage.js") },
  { path: "/queue", title: "Queue", nav: "Listen", load: () => import("../pages/player/QueuePage.js") },
  { path: "/artists", title: "Artists", nav: "Library", load: () => import("../pages/library/ArtistsPage.js") },
  { path: "/albums", title: "Albums", nav: "Library", load: () => import("../pages/library/AlbumsPage.js") },
  { path: "/genres", title: "Genres", nav: "Library", load: () => import("../pages/library/GenresPage.js") },
  { path: "/years", title: "Years", nav: "Library", load: () => import("../pages/library/YearsPage.js") },
  { path: "/albums/:id", title: "Album", load: () => import("../pages/library/AlbumPage.js") },
  { path: "/artists/:id", title: "Artist", load: () => import("../pages/library/ArtistPage.js") },
  { path: "/likes", title: "Likes", nav: "You", load: () => import("../pages/likes/LikesPage.js") },
  { path: "/playlists", title: "Playlists", nav: "You", load: () => import("../pages/playlists/PlaylistsPage.js") },
  { path: "/playlists/:id", title: "Playlist", load: () => import("../pages/playlists/PlaylistPage.js") },
  {
    path: "/smart-playlists/new",
    title: "New smart playlist",
    load: () => import("../pages/smartPlaylists/SmartPlaylistPage.js"),
  },
  {
    path: "/smart-playlists/:id",
    title: "Smart playlist",
    load: () => import("../pages/smartPlaylists/SmartPlaylistPage.js"),
  },
  { path: "/downloads", title: "Downloads", nav: "You", load: () => import("../pages/offline/DownloadsPage.js") },
  { path: "/sessions", title: "Sessions", nav: "You", load: () => import("../pages/account/SessionsPage.js") },
  {
    path: "/settings/subsonic",
    title: "Subsonic apps",
    nav: "You",
    load: () => import("../pages/settings/SubsonicPage.js"),
  },
  {
    path: "/settings/playback",
    title: "Playback",
    nav: "You",
    load: () => import("../pages/settings/PlaybackPage.js"),
  },
  {
    path: "/settings/imports",
    title: "Import & export",
    nav: "You",
    load: () => import("../pages/history/ImportsPage.js"),
  },
  {
    path: "/settings/scrobbling",
    title: "Scrobbling",
    nav: "You",
    load: () => import("../pages/settings/ScrobblingPage.js"),
  },
  { path: "/requests", title: "Request music", nav: "You", load: () => import("../pages/requests/RequestsPage.js") },
  { path: "/for-you", title: "For You", nav: "Listen", load: () => import("../pages/recommendations/ForYouPage.js") },
  {
    path: "/discover",
    title: "Discover",
    nav: "Listen",
    load: () => import("../pages/recommendations/DiscoverPage.js"),
  },
  { path: "/mixes", title: "Mixes", nav: "Listen", load: () => import("../pages/recommendations/MixesPage.js") },
  { path: "/mixes/:kind", title: "Mix", load: () => import("../pages/recommendations/MixPage.js") },
  { path: "/stats", title: "Your stats", nav: "You", load: () => import("../pages/recommendations/StatsPage.js") },
  {
    path: "/admin/users",
    title: "Users",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/admin/UsersPage.js"),
  },
  {
    path: "/admin/library",
    title: "Library scan",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/admin/LibraryAdminPage.js"),
  },
  {
    path: "/admin/proxies",
    title: "Trusted proxies",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/admin/ProxiesPage.js"),
  },
  {
    path: "/admin/tuning",
    title: "Tuning",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/admin/TuningPage.js"),
  },
  {
    path: "/admin/trends",
    title: "Trends",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/admin/TrendsPage.js"),
  },
  {
    path: "/admin/enrichment",
    title: "Enrichment",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/enrichment/EnrichmentAdminPage.js"),
  },
  {
    path: "/admin/requests",
    title: "Requests",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/enrichment/RequestsAdminPage.js"),
  },
  {
    path: "/admin/quarantine",
    title: "Quarantine",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/moderation/QuarantinePage.js"),
  },
  {
    path: "/admin/playback-errors",
    title: "Playback errors",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/moderation/PlaybackErrorsPage.js"),
  },
  {
    path: "/admin/diagnostics",
    title: "Diagnostics",
    nav: "Admin",
    admin: true,
    load: () => import("../pages/moderation/DiagnosticsPage.js"),
  },
]

/** Shown for an address no route matches. */
export const notFoundRoute: RouteDef = {
  path: "*",
  title: "Not found",
  load: () => import("../pages/NotFoundPage.js"),
}
