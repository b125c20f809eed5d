import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, type Layer } from "effect"
import { LoggingLive } from "./config.js"
import { addressInUse, portInUse } from "./errors.js"

/** Known startup failures carry a message meant for the operator: print it plainly, exit 1. */
export const operatorMessage = (cause: Cause.Cause<unknown>): string | undefined => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "None") return undefined
  const error = failure.value as { _tag?: string; message?: unknown; cause?: unknown }
  if (error._tag === "ConfigError") return `configuration error: ${String(failure.value)}`
  if (error._tag === "CliError" || error._tag === "PromptFailed") return String(error.message)
  // The HTTP server's listen failed: "ServeError: An error has occurred" says nothing; the socket error does.
  const inUse = error._tag === "ServeError" ? addressInUse(error.cause) : undefined
  if (inUse !== undefined) return portInUse(inUse.host, inUse.port).message
  return typeof error.message === "string" && error.message.length > 0
    ? `${error._tag ?? "error"}: ${error.message}`
    : undefined
}

export const runCommand = <A, E>(effect: Effect.Effect<A, E>) =>
  NodeRuntime.runMain(
    effect.pipe(
      Effect.provide(LoggingLive as Layer.Layer<never>),
      Effect.onExit((exit) =>
        Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
          ? Effect.sync(() => {
              const message = operatorMessage(exit.cause)
              process.stderr.write(`tonearm: ${message ?? Cause.pretty(exit.cause)}\n`)
            })
          : Effect.void,
      ),
    ),
    { disablePrettyLogger: true, disableErrorReporting: true },
  )
