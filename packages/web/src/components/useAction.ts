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
  /** The last outcome, for the page's `role="status"` line (cleared when an action starts). */
  readonly message: Signal<string>
  /** Whether the message says why the last action failed (a page may show a failure apart, as an alert). */
  readonly failed: boolean
  /** Whether an action is still on its way. */
  readonly busy: boolean
  /** Runs `call`, says how it went, and reloads the page's data after a success. Resolves to whether it worked. */
  readonly run: <A>(call: () => Promise<A>, say: ActionSay<A>) => Promise<boolean>
  /** Says a line without calling anything ("Nothing changed."). */
  readonly say: (text: string) => void
}

/**
 * The pattern of every action button and form on the admin and account pages: press → call the server → a busy
 * flag while it runs → one line saying it worked or why not, and the listed data reloaded (`reload`, from useLoad).
 */
export const useAction = (reload?: () => void): Action => {
  const message = useSignal("")
  const failed = useSignal(false)
  const running = useSignal(0)
  const say = (text: string) => {
    message.value = text
    failed.value = false
  }
  const run = async <A>(call: () => Promise<A>, lines: ActionSay<A>): Promise<boolean> => {
    if (lines.confirm !== undefined && !confirm(lines.confirm)) return false
    say("")
    running.value += 1
    try {
      const result = await call()
      say(typeof lines.done === "string" ? lines.done : lines.done(result))
      reload?.()
      return true
    } catch (failure) {
      message.value = lines.failed === undefined ? errorMessage(failure) : `${lines.failed}: ${errorMessage(failure)}`
      failed.value = true
      return false
    } finally {
      running.value -= 1
    }
  }
  return { message, failed: failed.value, busy: running.value > 0, run, say }
}
