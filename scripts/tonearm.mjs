// `pnpm tonearm ...`: runs the built CLI (packages/cli/dist/bin.js), the same JavaScript the npm package
// installs, building it first when it is missing or older than any source it bundles (tsup, under a second).
// The build's output goes to stderr, so `pnpm --silent tonearm --version` prints the version alone.
// The CLI then runs in this process (no wrapper process stays resident next to the server), with the node flags
// of the installed command's shebang, given in the root package.json script (see packages/cli/tsup.config.ts).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const cli = path.join(root, "packages", "cli")
const bin = path.join(cli, "dist", "bin.js")
// Everything the bundle is made of: the workspace packages' sources and their build and package settings.
const inputs = ["core", "recommend", "server", "client-sdk", "cli"].flatMap((name) => [
  path.join(root, "packages", name, "src"),
  path.join(root, "packages", name, "package.json"),
  path.join(root, "packages", name, "tsup.config.ts"),
])

const newestMtime = (target) => {
  let stat
  try {
    stat = fs.statSync(target)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)))
  return newest
}

const builtAt = () => {
  try {
    return fs.statSync(bin).mtimeMs
  } catch {
    return -1
  }
}
const stale = () => {
  const built = builtAt()
  return built < 0 || inputs.some((input) => newestMtime(input) > built)
}

/** One build at a time (two `pnpm tonearm` started together): a lock directory, taken over when abandoned. */
const withBuildLock = (task) => {
  const lock = path.join(cli, ".build-lock")
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 120_000 || Date.now() > deadline) fs.rmSync(lock, { recursive: true, force: true })
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200)
    }
  }
  try {
    return task()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

if (stale()) {
  withBuildLock(() => {
    if (!stale()) return // built by the run that held the lock
    process.stderr.write("tonearm: building packages/cli/dist (tsup)...\n")
    const tsup = path.join(root, "node_modules", ".bin", "tsup")
    const result = spawnSync(tsup, ["--silent"], { cwd: cli, stdio: ["ignore", process.stderr, "inherit"] })
    if (result.status !== 0) {
      process.stderr.write("tonearm: the CLI build failed (see above)\n")
      process.exit(result.status ?? 1)
    }
  })
}

// The web player (packages/web): rebuilt with Vite when its sources (or the SDK and contract it bundles) are
// newer than its dist, and served from there rather than from the CLI's copy, so `pnpm tonearm serve` always
// serves the current app with no extra step.
const web = path.join(root, "packages", "web")
const webInputs = [
  path.join(web, "src"),
  path.join(web, "index.html"),
  path.join(web, "vite.config.ts"),
  path.join(web, "package.json"),
  path.join(root, "packages", "client-sdk", "src"),
  path.join(root, "packages", "core", "src"),
]
const webBuiltAt = () => {
  try {
    return fs.statSync(path.join(web, "dist", "index.html")).mtimeMs
  } catch {
    return -1
  }
}
const webStale = () => webBuiltAt() < 0 || webInputs.some((input) => newestMtime(input) > webBuiltAt())
const vite = path.join(web, "node_modules", ".bin", "vite")
if (fs.existsSync(vite) && webStale()) {
  withBuildLock(() => {
    if (!webStale()) return
    process.stderr.write("tonearm: building packages/web/dist (vite)...\n")
    const result = spawnSync(vite, ["build", "--logLevel", "warn"], {
      cwd: web,
      stdio: ["ignore", process.stderr, "inherit"],
    })
    if (result.status !== 0)
      process.stderr.write("tonearm: the web player build failed (see above); serving the API only\n")
  })
}
if (fs.existsSync(path.join(web, "dist", "index.html"))) process.env.TONEARM_WEB_DIR ??= path.join(web, "dist")

await import(pathToFileURL(bin).href)
