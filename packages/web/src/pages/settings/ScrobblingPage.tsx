import { useSignal } from "@preact/signals"
import type { ScrobblerSettings } from "@tonearm/core"
import { DateTime } from "effect"
import { useEffect } from "preact/hooks"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { navigate, query } from "../../state/router.js"
import "../../styles/scrobbling.css"

const PAGE = "/settings/scrobbling"

const when = (value: DateTime.Utc | null) => (value === null ? "never" : DateTime.toDate(value).toLocaleString())

/** Where the queue stands, and why sending stopped when it did. */
function QueueStatus(props: { readonly settings: ScrobblerSettings; readonly name: string }) {
  const { status } = props.settings
  return (
    <div data-testid={`${props.settings.provider}-status`}>
      {status.needs_auth && (
        <p class="load-error" role="alert">
          {props.name} refused the {props.settings.provider === "lastfm" ? "connection" : "token"}: nothing is sent
          until you {props.settings.provider === "lastfm" ? "connect again" : "paste a new token"}. Your plays wait in
          the queue.
        </p>
      )}
      <dl class="scrobble-status">
        <dt>Waiting to be sent</dt>
        <dd data-testid={`${props.settings.provider}-queued`}>{status.queued}</dd>
        <dt>Sent</dt>
        <dd data-testid={`${props.settings.provider}-sent`}>{status.sent}</dd>
        <dt>Last sent</dt>
        <dd>{when(status.last_sent_at)}</dd>
        <dt>Last error</dt>
        <dd data-testid={`${props.settings.provider}-error`}>
          {status.last_error === null ? "none" : `${status.last_error} (${when(status.last_error_at)})`}
        </dd>
      </dl>
    </div>
  )
}

function EnabledToggle(props: {
  readonly settings: ScrobblerSettings
  readonly name: string
  readonly onChange: (enabled: boolean) => void
}) {
  const id = `${props.settings.provider}-enabled`
  return (
    <label class="choice">
      <input
        id={id}
        type="checkbox"
        checked={props.settings.enabled}
        disabled={!props.settings.token_set}
        onChange={(event) => props.onChange((event.target as HTMLInputElement).checked)}
        aria-describedby={`${id}-help`}
      />
      <span>
        <span class="choice-label">Send my plays to {props.name}</span>
        <span class="muted" id={`${id}-help`}>
          {props.settings.token_set
            ? "Each play you finish (not a skip) is sent, and what you start shows as now playing. Switching it off also drops what is still waiting."
            : `Needs ${props.settings.provider === "lastfm" ? "a connected Last.fm account" : "your user token"} first.`}
        </span>
      </span>
    </label>
  )
}

/**
 * Scrobbling out: send each completed play to ListenBrainz (with the listener's user token) and Last.fm (connected
 * through Last.fm's own page, which comes back here with `?token=`), and show how each queue stands.
 */
export default function ScrobblingPage() {
  const listenbrainz = useLoad(
    (signal) => api((client) => client.scrobblers.get({ path: { provider: "listenbrainz" } }), signal),
    [],
  )
  const lastfm = useLoad(
    (signal) => api((client) => client.scrobblers.get({ path: { provider: "lastfm" } }), signal),
    [],
  )
  const reload = () => {
    listenbrainz.reload()
    lastfm.reload()
  }
  const { message, run } = useAction(reload)
  const token = useSignal("")

  const update = (
    provider: "listenbrainz" | "lastfm",
    payload: { enabled?: boolean; token?: string | null },
    done: string,
  ) =>
    run(() => api((client) => client.scrobblers.update({ path: { provider }, payload })), {
      done,
      failed: "Could not save",
    })

  // Back from Last.fm's page: trade its token for a session, then drop the token from the address.
  const callbackToken = query.value.get("token")
  useEffect(() => {
    if (callbackToken === null || callbackToken === "") return
    navigate(PAGE, { replace: true })
    void run(() => api((client) => client.scrobblers.lastfmSession({ payload: { token: callbackToken } })), {
      done: (connected) =>
        `Last.fm connected${connected.account === null ? "" : ` as ${connected.account}`}: your plays are sent there now.`,
      failed: "Could not connect Last.fm",
    })
  }, [callbackToken])

  const saveToken = (event: Event) => {
    event.preventDefault()
    const value = token.value.trim()
    if (value === "") return
    void update(
      "listenbrainz",
      { token: value, enabled: true },
      "ListenBrainz token saved: your plays are sent there now.",
    ).then((worked) => {
      if (worked) token.value = ""
    })
  }

  const lb = listenbrainz.data
  const lf = lastfm.data
  const connectUrl =
    lf?.auth_url == null ? null : `${lf.auth_url}&cb=${encodeURIComponent(`${location.origin}${PAGE}`)}`
  return (
    <section class="settings scrobbling">
      <h1>Scrobbling</h1>
      <p>
        Send what you listen to here to ListenBrainz and Last.fm, as your other players do. Plays are kept in a queue
        and retried until the service takes them, so nothing is lost while it is down.{" "}
        <button type="button" onClick={reload}>
          Refresh status
        </button>
      </p>
      <p role="status">{message.value}</p>

      <fieldset class="choices">
        <legend>ListenBrainz</legend>
        <Status loaded={listenbrainz} />
        {lb !== undefined && (
          <>
            <EnabledToggle
              settings={lb}
              name="ListenBrainz"
              onChange={(enabled) =>
                void update("listenbrainz", { enabled }, enabled ? "ListenBrainz is on." : "ListenBrainz is off.")
              }
            />
            <form onSubmit={saveToken}>
              <label>
                User token{" "}
                <input
                  type="password"
                  autocomplete="off"
                  value={token.value}
                  maxLength={512}
                  placeholder={
                    lb.token_set
                      ? `Saved (${lb.token ?? "…"}); paste a new one to replace it`
                      : "from listenbrainz.org/settings"
                  }
                  onInput={(event) => {
                    token.value = (event.target as HTMLInputElement).value
                  }}
                />
              </label>{" "}
              <button type="submit">Save token</button>{" "}
              {lb.token_set && (
                <button
                  type="button"
                  class="danger"
                  onClick={() =>
                    void update("listenbrainz", { token: null, enabled: false }, "ListenBrainz token removed.")
                  }
                >
                  Remove token
                </button>
              )}
            </form>
            <p class="muted">
              Your token is on{" "}
              <a href="https://listenbrainz.org/settings/" target="_blank" rel="noreferrer">
                your ListenBrainz settings
              </a>
              . It is kept on the server and never shown again.
            </p>
            <QueueStatus settings={lb} name="ListenBrainz" />
          </>
        )}
      </fieldset>

      <fieldset class="choices">
        <legend>Last.fm</legend>
        <Status loaded={lastfm} />
        {lf !== undefined &&
          (!lf.available ? (
            <p class="muted">
              Last.fm scrobbling is not set up on this server (it needs the admin's Last.fm API key and secret).
            </p>
          ) : (
            <>
              <EnabledToggle
                settings={lf}
                name="Last.fm"
                onChange={(enabled) =>
                  void update("lastfm", { enabled }, enabled ? "Last.fm is on." : "Last.fm is off.")
                }
              />
              {lf.token_set ? (
                <p>
                  Connected{lf.account === null ? "" : ` as ${lf.account}`}.{" "}
                  <button
                    type="button"
                    class="danger"
                    onClick={() => void update("lastfm", { token: null, enabled: false }, "Last.fm disconnected.")}
                  >
                    Disconnect
                  </button>
                </p>
              ) : null}
              {connectUrl !== null && (
                <p>
                  <a class="button" href={connectUrl} data-testid="lastfm-connect">
                    {lf.token_set ? "Connect again" : "Connect Last.fm"}
                  </a>{" "}
                  <span class="muted">Last.fm asks you to allow Tonearm, then brings you back here.</span>
                </p>
              )}
              <QueueStatus settings={lf} name="Last.fm" />
            </>
          ))}
      </fieldset>
    </section>
  )
}
