import type { ComponentChildren } from "preact"
import { session } from "../state/session.js"

/** Admin pages render only for admins; anyone else who navigates here directly gets "Not allowed" (the server says 403 anyway). */
export function AdminOnly(props: { readonly children: ComponentChildren }) {
  if (session.value?.is_admin) return <>{props.children}</>
  return (
    <section>
      <h1>Not allowed</h1>
      <p>
        This page is for administrators. <a href="/">Go home</a>.
      </p>
    </section>
  )
}
