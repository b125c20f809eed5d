import { render } from "preact"
import { routes } from "./shell/routes.js"
import { Shell } from "./shell/Shell.js"
import { api } from "./state/api.js"
import { registerServiceWorker } from "./state/offline.js"
import { prefetch } from "./state/prefetch.js"
// The queue is kept on the server across reloads and devices (restored at sign-in).
import "./state/queueSync.js"
import "./styles/app.css"

// Home is the usual first page: its chunk and its data start loading now, alongside the session check.
if (location.pathname === "/") {
  void routes.find((route) => route.path === "/")?.load()
  prefetch("home", () => api((client) => client.home.sections()))
}

render(<Shell />, document.getElementById("app")!)

// The app shell and downloads work offline once the service worker is installed (src/sw/sw.ts).
registerServiceWorker()
