import { useSignal } from "@preact/signals"
import type { TrustedProxiesView } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural } from "../../components/format.js"
import { useAction } from "../../components/useAction.js"
import { api, errorMessage } from "../../state/api.js"

/** Admin: how many proxy hops to trust, and what that makes of this very request (GET/PUT /api/admin/trusted-proxies). */
function Proxies() {
  const view = useSignal<TrustedProxiesView | undefined>(undefined)
  const hops = useSignal("")
  const { message, run } = useAction()
  useEffect(() => {
    api((client) => client.trustedProxies.get()).then(
      (loaded) => {
        view.value = loaded
        hops.value = String(loaded.hops)
      },
      (failure: unknown) => (message.value = errorMessage(failure)),
    )
  }, [])
  const save = async (event: Event) => {
    event.preventDefault()
    await run(() => api((client) => client.trustedProxies.set({ payload: { hops: Number(hops.value) } })), {
      done: (saved) => {
        view.value = saved
        hops.value = String(saved.hops)
        return `Saved: trusting ${plural(saved.hops, "hop")}.`
      },
      failed: "Not saved",
    })
  }
  const data = view.value
  return (
    <section>
      <h1>Trusted proxies</h1>
      <p class="muted">
        How many reverse proxies in front of Tonearm to trust when reading X-Forwarded-For: it decides the client
        address used for login limits and session records.
      </p>
      <form class="inline-form" onSubmit={save} noValidate>
        <label>
          Trusted hops
          <input
            type="number"
            min={0}
            step={1}
            value={hops.value}
            onInput={(e) => (hops.value = e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          Save
        </button>
      </form>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      {data !== undefined && (
        <dl class="stats" aria-label="This request">
          <div>
            <dt>Current setting</dt>
            <dd data-testid="hops">{data.hops}</dd>
          </div>
          <div>
            <dt>Resolved client address</dt>
            <dd>{data.resolved_address}</dd>
          </div>
          <div>
            <dt>Socket peer</dt>
            <dd>{data.socket_peer}</dd>
          </div>
          <div>
            <dt>Forwarded chain</dt>
            <dd>{data.forwarded_chain.length === 0 ? "(none)" : data.forwarded_chain.join(", ")}</dd>
          </div>
          <div>
            <dt>Proxies implied by the chain</dt>
            <dd>{data.implied_proxy_count}</dd>
          </div>
        </dl>
      )}
    </section>
  )
}

export default function ProxiesPage() {
  return (
    <AdminOnly>
      <Proxies />
    </AdminOnly>
  )
}
