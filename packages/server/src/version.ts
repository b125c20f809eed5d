import { createRequire } from "node:module"

/** The server package version (src/ and dist/ both sit one level below package.json). */
export const SERVER_VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version
