import { render } from "preact"
import { api } from "./app/api.js"
import { prefetch } from "./app/prefetch.js"
import { routes } from "./app/routes.js"
import { Shell } from "./app/Shell.js"
import "./styles/app.css"

// Home is the usual first page: its chunk and its data start loading now, alongside the session check.
if (location.pathname === "/") {
  void routes.find((route) => route.path === "/")?.load()
  prefetch("home", () => api((client) => client.home.sections()))
}

render(<Shell />, document.getElementById("app")!)
