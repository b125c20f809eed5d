import { render } from "preact"
import { Shell } from "./app/Shell.js"
import "./styles/app.css"

render(<Shell />, document.getElementById("app")!)
