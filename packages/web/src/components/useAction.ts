import { type Signal, useSignal } from "@preact/signals"
import { errorMessage } from "../state/api.js"

export interface ActionSay<A> {
  /** The line once it worked ("" says nothing): fixed, or made from what the call returned. */
  readonly done: string | ((result: A) => string)
  /** Put before the error ("Could not revoke" → "Could not revoke: <why>"); the bare error when absent. */
  readonly failed?: string
  /** Asked first with `confirm()`; a cancel runs nothing. */
  readonly confirm?: string
}

export interface Action {
  /** The last outcome, for the page's `role="status"` line. */
  readonly message: Signal<string>
  /** Whether the message says why the last action failed (a page may show a failure apart, as an alert). */
  readonly failed: boolean
  /** Runs `call`, says how it went, and reloads the page's data after a success. Resolves to whether it worked. */
  readonly run: <A>(call: () => Promise<A>, say: ActionSay<A>) => Promise<boolean>
  /** Says a line without calling anything ("Nothing changed."). */
  readonly say: (text: string) => void
}

/**
 * The pattern of every action button and form on the admin and account pages: press → call the server → one line
 * saying it worked or why not, and the listed data reloaded (`reload`, from useLoad).
 *
 * Nothing changes while the call is on its way (no cleared line, no busy flag): a re-render then would put a
 * checkbox the listener just ticked back to the server's old value until the reload lands.
 */
export const useAction = (reload?: () => void): Action => {
  const message = useSignal("")
  const failed = useSignal(false)
  const say = (text: string) => {
    message.value = text
    failed.value = false
  }
  const run = async <A>(call: () => Promise<A>, lines: ActionSay<A>): Promise<boolean> => {
    if (lines.confirm !== undefined && !confirm(lines.confirm)) return false
    try {
      const result = await call()
      say(typeof lines.done === "string" ? lines.done : lines.done(result))
      reload?.()
      return true
    } catch (failure) {
      message.value = lines.failed === undefined ? errorMessage(failure) : `${lines.failed}: ${errorMessage(failure)}`
      failed.value = true
      return false
    }
  }
  return { message, failed: failed.value, run, say }
}
