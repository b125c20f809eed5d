import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Context, Data, Effect, Layer, Option } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"

export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
}

export class MailError extends Data.TaggedError("MailError")<{ readonly cause: unknown }> {}

/** Delivers account mail: to the configured webhook, or into the server log when none is configured. */
export class Mailer extends Context.Tag("@tonearm/server/Mailer")<
  Mailer,
  { readonly send: (message: MailMessage) => Effect.Effect<void, MailError> }
>() {
  static readonly layer = Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const config = yield* TonearmConfig
      const http = yield* HttpClient.HttpClient
      return Option.match(config.mailWebhookUrl, {
        onNone: () => ({
          send: (message: MailMessage) =>
            Effect.logWarning(`no mailer configured; mail to ${message.to}: ${message.subject}\n${message.text}`),
        }),
        onSome: (url) => ({
          send: (message: MailMessage) =>
            HttpClientRequest.post(url).pipe(
              HttpClientRequest.bodyJson(message),
              Effect.flatMap(http.execute),
              Effect.flatMap((response) =>
                response.status < 300 ? Effect.void : Effect.fail(new Error(`webhook answered ${response.status}`)),
              ),
              Effect.scoped,
              Effect.mapError((cause) => new MailError({ cause })),
            ),
        }),
      })
    }),
  )
}
