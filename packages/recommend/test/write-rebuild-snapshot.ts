/**
 * Writes `rebuild-snapshot.json` from the current engine (see `rebuildSnapshot.ts`). Only for a
 * deliberate change of behaviour:
 *
 *   pnpm exec tsx packages/recommend/test/write-rebuild-snapshot.ts
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { rebuildSnapshot } from "./rebuildSnapshot.js"

const file = join(import.meta.dirname, "rebuild-snapshot.json")
writeFileSync(file, `${JSON.stringify(rebuildSnapshot())}\n`)
console.log(`wrote ${file}`)
