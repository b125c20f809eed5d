import { createInterface, type Interface } from "node:readline"
import { Data, Effect } from "effect"

export class PromptFailed extends Data.TaggedError("PromptFailed")<{ readonly message: string }> {}

/** The part of a terminal's standard input a hidden prompt uses (a fake one in tests). */
export interface RawInput {
  setRawMode(mode: boolean): unknown
  setEncoding(encoding: BufferEncoding): unknown
  resume(): unknown
  pause(): unknown
  on(event: "data", listener: (chunk: string | Buffer) => void): unknown
  removeListener(event: "data", listener: (chunk: string | Buffer) => void): unknown
}

/**
 * Reads a line from a terminal in raw mode without echoing it: Enter ends it, Backspace deletes, Ctrl-C and
 * Ctrl-D on an empty line give up. The prompt and the final newline go to `output`, nothing else.
 */
export const readHidden = (
  prompt: string,
  input: RawInput,
  output: { write(text: string): unknown },
): Promise<string | undefined> =>
  new Promise((resolve) => {
    let typed = ""
    output.write(prompt)
    const finish = (value: string | undefined) => {
      input.removeListener("data", onData)
      input.setRawMode(false)
      input.pause()
      output.write("\n")
      resolve(value)
    }
    const onData = (chunk: string | Buffer) => {
      for (const char of String(chunk)) {
        if (char === "\r" || char === "\n") return finish(typed)
        if (char === "\u0003" || (char === "\u0004" && typed === "")) return finish(undefined)
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1)
        else if (char === "\u0015") typed = ""
        else if (char >= " ") typed += char
      }
    }
    input.setRawMode(true)
    input.setEncoding("utf8")
    input.on("data", onData)
    input.resume()
  })

/** Asks questions on the terminal, or reads one answer a line from standard input when it is not a terminal. */
export interface Prompter {
  readonly tty: boolean
  readonly line: (question: string) => Effect.Effect<string, PromptFailed>
  readonly secret: (question: string) => Effect.Effect<string, PromptFailed>
}

const ended = (what: string) =>
  new PromptFailed({ message: `standard input ended before the ${what.replace(/[:\s]+$/, "").toLowerCase()}` })

/** A prompter for the command; its standard input is let go when the scope closes. */
export const makePrompter = Effect.gen(function* () {
  const stdin = process.stdin
  if (stdin.isTTY === true) {
    const line = (question: string) =>
      Effect.async<string, PromptFailed>((resume) => {
        const rl = createInterface({ input: stdin, output: process.stderr, terminal: true })
        rl.question(question, (answer) => {
          rl.close()
          resume(Effect.succeed(answer.trim()))
        })
        rl.on("SIGINT", () => {
          rl.close()
          resume(Effect.fail(new PromptFailed({ message: "cancelled" })))
        })
      })
    const secret = (question: string) =>
      Effect.flatMap(
        Effect.promise(() => readHidden(question, stdin, process.stderr)),
        (answer) =>
          answer === undefined ? Effect.fail(new PromptFailed({ message: "cancelled" })) : Effect.succeed(answer),
      )
    return { tty: true, line, secret } satisfies Prompter
  }
  // Scripts pipe the answers, one a line, in the order the questions are asked.
  const rl = yield* Effect.acquireRelease(
    Effect.sync(() => createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY })),
    (rl: Interface) => Effect.sync(() => rl.close()),
  )
  const lines = rl[Symbol.asyncIterator]()
  // Trimmed, as before: `echo secret | tonearm …` and a file with a trailing newline or CRLF read the same.
  const next = (what: string) =>
    Effect.flatMap(
      Effect.promise(() => lines.next()),
      (result) => (result.done === true ? Effect.fail(ended(what)) : Effect.succeed(String(result.value).trim())),
    )
  return { tty: false, line: next, secret: next } satisfies Prompter
})

/** A new password: typed twice on a terminal, which must match; one line of standard input otherwise. */
export const newPassword = (prompter: Prompter) =>
  Effect.gen(function* () {
    const first = yield* prompter.secret("Password: ")
    if (!prompter.tty) return first
    const again = yield* prompter.secret("Password again: ")
    if (again !== first) return yield* new PromptFailed({ message: "the two passwords differ; nothing was changed" })
    return first
  })
