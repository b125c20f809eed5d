import type { TonearmClient } from "@tonearm/client-sdk"
import type { RebuildRun } from "@tonearm/core"
import { Data, DateTime, Effect } from "effect"
import type { RebuildFlags } from "../flags.js"
import { asAdmin } from "../remote.js"
import { runCommand } from "../run.js"

export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{ readonly message: string }> {}
export class RebuildFailed extends Data.TaggedError("RebuildFailed")<{ readonly message: string }> {}

const BAR_WIDTH = 30
/** How often the run's progress is read. */
const POLL_MS = 500

/** A redrawn bar on a terminal; on a pipe, one line per 10 % so logs stay readable. */
const progressPrinter = () => {
  const tty = process.stderr.isTTY === true
  let lastDecile = -1
  return (run: RebuildRun) =>
    Effect.sync(() => {
      const finished = run.done + run.failed
      const ratio = run.total === 0 ? 1 : finished / run.total
      const percent = Math.floor(ratio * 100)
      const line = `rebuilt ${finished}/${run.total} users${run.failed > 0 ? ` · ${run.failed} failed` : ""}`
      if (tty) {
        const filled = Math.round(ratio * BAR_WIDTH)
        process.stderr.write(`\r\x1b[2K[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${percent}% ${line}`)
        if (run.state !== "running") process.stderr.write("\n")
      } else if (Math.floor(percent / 10) > lastDecile) {
        lastDecile = Math.floor(percent / 10)
        process.stderr.write(`${percent}% ${line}\n`)
      }
    })
}

/** `tonearm rebuild --user NAME | --all`: starts the run on the server, follows it, exits 1 if any user failed. */
export const rebuild = (flags: RebuildFlags) =>
  runCommand(
    Effect.gen(function* () {
      if ((flags.user === undefined) === !flags.all)
        return yield* new InvalidArguments({ message: "give exactly one of --user NAME or --all" })
      return yield* asAdmin(flags, ({ client }) => follow(client, flags))
    }),
  )

const follow = (client: TonearmClient, flags: RebuildFlags) =>
  Effect.gen(function* () {
    const started = yield* client.rebuilds.start({
      payload: flags.user === undefined ? { all: true } : { username: flags.user },
    })
    const show = flags.json ? () => Effect.void : progressPrinter()
    let run = yield* client.rebuilds.status({ path: { id: started.id } })
    yield* show(run)
    while (run.state === "running") {
      yield* Effect.sleep(POLL_MS)
      run = yield* client.rebuilds.status({ path: { id: started.id } })
      yield* show(run)
    }
    const seconds = run.finished_at === null ? 0 : DateTime.distance(run.started_at, run.finished_at) / 1000
    yield* Effect.sync(() =>
      console.log(
        flags.json
          ? JSON.stringify(
              {
                ...run,
                started_at: DateTime.formatIso(run.started_at),
                finished_at: run.finished_at === null ? null : DateTime.formatIso(run.finished_at),
              },
              null,
              2,
            )
          : `rebuilt ${run.done} of ${run.total} users in ${seconds.toFixed(1)} s${run.failed > 0 ? `, ${run.failed} failed (see the server log)` : ""}`,
      ),
    )
    if (run.state === "failed")
      return yield* new RebuildFailed({ message: `${run.failed} of ${run.total} rebuilds failed` })
  })
