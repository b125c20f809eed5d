import { EventEmitter } from "node:events"
import { HttpServerError } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause } from "effect"
import { readHidden } from "../src/prompt.js"
import { operatorMessage } from "../src/run.js"

/** A terminal's standard input that records its raw mode; the test types into it. */
const fakeTerminal = () => {
  const input = Object.assign(new EventEmitter(), {
    raw: [] as Array<boolean>,
    setRawMode(mode: boolean) {
      input.raw.push(mode)
    },
    setEncoding() {},
    resume() {},
    pause() {},
  })
  let shown = ""
  const output = {
    write(text: string) {
      shown += text
    },
  }
  return { input, output, shown: () => shown }
}

describe("password prompt", () => {
  it("reads in raw mode without echoing what is typed; Backspace deletes; Enter ends", async () => {
    const terminal = fakeTerminal()
    const answer = readHidden("Password: ", terminal.input, terminal.output)
    terminal.input.emit("data", "secrex")
    terminal.input.emit("data", "\u007ft pass")
    terminal.input.emit("data", "\r")
    expect(await answer).toBe("secret pass")
    expect(terminal.shown()).toBe("Password: \n")
    expect(terminal.input.raw).toEqual([true, false])
  })

  it("a pasted line with its newline ends at the newline; Ctrl-C gives up and leaves raw mode", async () => {
    const pasted = fakeTerminal()
    const answer = readHidden("Password: ", pasted.input, pasted.output)
    pasted.input.emit("data", "pasted password\n")
    expect(await answer).toBe("pasted password")
    const cancelled = fakeTerminal()
    const none = readHidden("Password: ", cancelled.input, cancelled.output)
    cancelled.input.emit("data", "abc\u0003")
    expect(await none).toBeUndefined()
    expect(cancelled.input.raw).toEqual([true, false])
  })
})

describe("operator messages", () => {
  it("a listen that fails with EADDRINUSE names the port and the flag, not 'An error has occurred'", () => {
    const cause = Object.assign(new Error("listen EADDRINUSE: address already in use 0.0.0.0:4533"), {
      code: "EADDRINUSE",
      address: "0.0.0.0",
      port: 4533,
    })
    expect(operatorMessage(Cause.fail(new HttpServerError.ServeError({ cause })))).toBe(
      "port 4533 is already in use (another tonearm or program is listening on 0.0.0.0:4533); choose another with --port",
    )
  })
})
