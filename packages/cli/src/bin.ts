#!/usr/bin/env node
import { createRequire } from "node:module"
import { makeProgram } from "./program.js"

const { version } = createRequire(import.meta.url)("../package.json") as { version: string }

await makeProgram(version).parseAsync(process.argv)
