import { render } from "preact"
import { api } from "./app/api.js"
import { registerServiceWorker } from "./app/offline.js"
import { prefetch } from "./app/prefetch.js"
import { routes } from "./app/routes.js"
import { Shell } from "./app/Shell.js"
// The queue is kept on the server across reloads and devices (restored at sign-in).
import "./app/queueSync.js"
import "./styles/app.css"

// Home is the usual first page: its chunk and its data start loading now, alongside the session check.
if (location.pathname === "/") {
  void routes.find((route) => route.path === "/")?.load()
  prefetch("home", () => api((client) => client.home.sections()))
}

render(<Shell />, document.getElementById("app")!)

// The app shell and downloads work offline once the service worker is installed (src/sw/sw.ts).
registerServiceWorker()
