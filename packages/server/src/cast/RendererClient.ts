import {
  parseRendererDescription,
  parseSoapFault,
  type RendererDescription,
  RendererError,
  RendererUnreachable,
  soapAction,
  soapEnvelope,
  xmlElement,
} from "@tonearm/core"
import { Effect } from "effect"
import { castSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"

/** A renderer's answer: the text of an output argument by name. */
export type SoapAnswer = (name: string) => string | undefined

/**
 * HTTP to speakers: their description and SOAP actions. Every call has the configured deadline (a renderer that
 * hangs never hangs a request) and follows no redirect (a renderer is only driven at the host it was found at).
 */
export class RendererClient extends Effect.Service<RendererClient>()("@tonearm/server/RendererClient", {
  effect: Effect.gen(function* () {
    const { timeoutMs } = castSettingsOf(yield* TonearmConfig)

    const request = (what: string, url: string, init: RequestInit) =>
      Effect.tryPromise({
        try: async (signal) => {
          const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
          const send = () => fetch(url, { ...init, redirect: "manual", signal: deadline })
          // A speaker's HTTP server (gmediarender's libupnp) may close a kept-alive connection just as it is reused
          // ("other side closed"): the call never reached it, and every call sent is idempotent (set a URI, play,
          // seek, read a state), so it goes once more on a new connection within the same deadline.
          const response = await send().catch((error) => {
            if (deadline.aborted) throw error
            return send()
          })
          return { status: response.status, text: await response.text() }
        },
        catch: (error) =>
          new RendererUnreachable({
            message:
              error instanceof Error && error.name === "TimeoutError"
                ? `the speaker did not answer ${what} within ${timeoutMs} ms`
                : `the speaker could not be reached (${what})`,
          }),
      })

    /** A renderer's description, read from the URL SSDP or the operator gave. */
    const describe = Effect.fn("RendererClient.describe")(function* (descriptionUrl: string) {
      const answer = yield* request("its description", descriptionUrl, { method: "GET" })
      const description = answer.status === 200 ? parseRendererDescription(answer.text, descriptionUrl) : undefined
      if (description === undefined) {
        return yield* new RendererError({ message: `${descriptionUrl} is not a MediaRenderer with AVTransport` })
      }
      return description
    })

    /** One SOAP action; a fault is `renderer_error` with the UPnP error code. */
    const soap = Effect.fn("RendererClient.soap")(function* (
      controlUrl: string,
      serviceType: string,
      action: string,
      args: ReadonlyArray<readonly [string, string | number]>,
    ) {
      const answer = yield* request(action, controlUrl, {
        method: "POST",
        headers: { "content-type": 'text/xml; charset="utf-8"', soapaction: soapAction(serviceType, action) },
        body: soapEnvelope(serviceType, action, args),
      })
      const fault = parseSoapFault(answer.text)
      if (answer.status !== 200 || fault !== undefined) {
        return yield* new RendererError({
          message: fault
            ? `the speaker refused ${action}: UPnP error ${fault.code} ${fault.description}`
            : `the speaker answered ${action} with HTTP ${answer.status}`,
        })
      }
      const text = answer.text
      const read: SoapAnswer = (name) => xmlElement(text, name)
      return read
    })

    return { describe, soap } as const
  }),
}) {}

export type { RendererDescription }
