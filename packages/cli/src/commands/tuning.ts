import type { Command } from "commander"
import { type RemoteFlags, withRemoteFlags } from "../flags.js"

const actions = () => import("../actions/tuning.js")

export const registerTuning = (program: Command) => {
  const tuning = program
    .command("tuning")
    .description("read and change the recommendation tuning of a running server (admin; applies live)")

  withRemoteFlags(
    tuning
      .command("get [scope]")
      .description("current and shipped values of every scope, or of one (radio, daily_mix, taste, discovery)"),
  ).action(async (scope: string | undefined, flags: RemoteFlags) => (await actions()).getTuning(scope, flags))

  withRemoteFlags(
    tuning
      .command("set <scope> <assignments...>")
      .description(
        "change fields of one scope: FIELD=VALUE … (numbers; completion_curve=0:-1,0.25:-0.4,0.6:0.3,0.9:0.9,1:1 or JSON)",
      ),
  ).action(async (scope: string, assignments: Array<string>, flags: RemoteFlags) =>
    (await actions()).setTuning(scope, assignments, flags),
  )

  withRemoteFlags(tuning.command("reset <scope>").description("restore one scope's shipped values")).action(
    async (scope: string, flags: RemoteFlags) => (await actions()).resetTuning(scope, flags),
  )

  withRemoteFlags(tuning.command("audit").description("every tuning change, newest first")).action(
    async (flags: RemoteFlags) => (await actions()).tuningAudit(flags),
  )
}
