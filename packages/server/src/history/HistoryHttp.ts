import { HttpApiBuilder } from "@effect/platform"
import { Internal, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"

// The contract's history routes; the import service behind them lands next (issue 26, H1 step 3).
const notYet = () => Effect.fail(new Internal({ message: "history imports are not wired yet" }))

export const ImportsHttpLive = HttpApiBuilder.group(TonearmApi, "imports", (handlers) =>
  Effect.succeed(
    handlers.handle("create", notYet).handle("list", notYet).handle("get", notYet).handle("unmatched", notYet),
  ),
)

export const AdminImportsHttpLive = HttpApiBuilder.group(TonearmApi, "adminImports", (handlers) =>
  Effect.succeed(handlers.handle("create", notYet).handle("get", notYet)),
)

export const PlaysExportHttpLive = HttpApiBuilder.group(TonearmApi, "playsExport", (handlers) =>
  Effect.succeed(handlers.handle("export", notYet)),
)
