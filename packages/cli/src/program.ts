import { Command } from "commander"
import { registerBackup } from "./commands/backup.js"
import { registerDiagnostics } from "./commands/diagnostics.js"
import { registerImport } from "./commands/import.js"
import { registerLibraries } from "./commands/libraries.js"
import { registerLogin } from "./commands/login.js"
import { registerMissing } from "./commands/missing.js"
import { registerRebuild } from "./commands/rebuild.js"
import { registerScan } from "./commands/scan.js"
import { registerServe } from "./commands/serve.js"
import { registerTuning } from "./commands/tuning.js"
import { registerUsers } from "./commands/users.js"

/** Every command and its flags; actions load on use, so building this (and `--help`) loads no server code. */
export const makeProgram = (version: string) => {
  const program = new Command()
    .name("tonearm")
    .description("Tonearm: a self-hosted music server with personal mixes")
    .version(version)
    .showHelpAfterError()
  registerServe(program)
  registerLogin(program)
  registerScan(program)
  registerImport(program)
  registerUsers(program)
  registerLibraries(program)
  registerMissing(program)
  registerRebuild(program)
  registerTuning(program)
  registerDiagnostics(program)
  registerBackup(program)
  return program
}
