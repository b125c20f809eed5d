#!/usr/bin/env node
import { SERVER_VERSION } from "@tonearm/server"
import { Command } from "commander"
import { registerServe } from "./commands/serve.js"
import { registerUsers } from "./commands/users.js"

const program = new Command()
  .name("tonearm")
  .description("Tonearm: a self-hosted music server with personal mixes")
  .version(SERVER_VERSION)
  .showHelpAfterError()

registerServe(program)
registerUsers(program)

await program.parseAsync(process.argv)
