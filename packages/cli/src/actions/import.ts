import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Readable } from "node:stream"
import type { TonearmClient } from "@tonearm/client-sdk"
import {
  type FileFormat,
  ImportCreated,
  type ImportId,
  type ImportSource,
  type ImportStatus,
  isListensEntry,
  JsonRecordSplitter,
  parseRecord,
  type UnmatchedListen,
  type UserId,
} from "@tonearm/core"
import { AccountsService, DatabaseLive, ImportService, ServicesLive, TonearmConfig } from "@tonearm/server"
import { DateTime, Effect, Fiber, Layer, Option, Schema } from "effect"
import { configProviderFor, resolvePath } from "../config.js"
import { storedLogin } from "../credentials.js"
import { CliError } from "../errors.js"
import type { ImportFlags } from "../flags.js"
import { explained, notSignedIn, type Session, sessionOn } from "../remote.js"
import { runCommand } from "../run.js"
import { type Local, locate, type Remote, recordedOf, requireDatabase } from "../target.js"

/** The sources `tonearm import` reads from a file (a Last.fm pull has no file: the web page does it). */
export type FileSource = FileFormat | "navidrome_db"
const FILE_SOURCES: ReadonlyArray<FileSource> = ["listenbrainz_export", "spotify_extended", "navidrome_db"]

const SOURCE_NAMES: Record<ImportSource, string> = {
  listenbrainz_export: "ListenBrainz export",
  spotify_extended: "Spotify streaming history",
  lastfm_api: "Last.fm",
  navidrome_db: "Navidrome database",
}

// ---- Which export a file is ----

const SNIFF_BYTES = 256 * 1024
const SQLITE_MAGIC = "SQLite format 3\u0000"
/** The largest zip central directory read to list entry names (a zip of many thousand files is smaller). */
const MAX_ZIP_DIRECTORY = 16 * 1024 * 1024

/** The names of a zip's entries, from its central directory; undefined when it cannot be read (zip64, damaged). */
const zipNames = (handle: fs.promises.FileHandle, size: number): Promise<ReadonlyArray<string> | undefined> =>
  (async () => {
    const tailLength = Math.min(size, 22 + 0xffff)
    const tail = Buffer.alloc(tailLength)
    await handle.read(tail, 0, tailLength, size - tailLength)
    let end = -1
    for (let at = tailLength - 22; at >= 0; at--)
      if (tail.readUInt32LE(at) === 0x06054b50) {
        end = at
        break
      }
    if (end === -1) return undefined
    const directorySize = tail.readUInt32LE(end + 12)
    const directoryOffset = tail.readUInt32LE(end + 16)
    if (directoryOffset === 0xffffffff || directorySize > MAX_ZIP_DIRECTORY || directoryOffset + directorySize > size)
      return undefined
    const directory = Buffer.alloc(directorySize)
    await handle.read(directory, 0, directorySize, directoryOffset)
    const names: Array<string> = []
    for (let at = 0; at + 46 <= directorySize && directory.readUInt32LE(at) === 0x02014b50; ) {
      const nameLength = directory.readUInt16LE(at + 28)
      const skip = directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32)
      names.push(directory.toString("utf8", at + 46, at + 46 + nameLength))
      at += 46 + nameLength + skip
    }
    return names
  })()

/**
 * Which export a file is, from its first bytes: a SQLite database is a navidrome.db; a zip by the names of its
 * files (Spotify's `Streaming_History_Audio_*.json`, a ListenBrainz export's listens); JSON by its first records.
 * Answers the source, or why it could not tell.
 */
export const detectSource = (filePath: string): Promise<{ source: FileSource } | { problem: string }> =>
  (async () => {
    const handle = await fs.promises.open(filePath, "r")
    try {
      const { size } = await handle.stat()
      const head = Buffer.alloc(Math.min(size, SNIFF_BYTES))
      const { bytesRead } = await handle.read(head, 0, head.length, 0)
      if (bytesRead === 0) return { problem: "the file is empty" }
      if (bytesRead >= 16 && head.toString("latin1", 0, 16) === SQLITE_MAGIC) return { source: "navidrome_db" }
      if (bytesRead >= 4 && head.readUInt32LE(0) === 0x04034b50) {
        const names = await zipNames(handle, size)
        if (names === undefined) return { problem: "the zip's list of files could not be read" }
        if (names.some((name) => isListensEntry("spotify_extended", name))) return { source: "spotify_extended" }
        if (names.some((name) => isListensEntry("listenbrainz_export", name))) return { source: "listenbrainz_export" }
        return { problem: "the zip holds no listening history files" }
      }
      const splitter = new JsonRecordSplitter()
      let records: Array<string>
      try {
        records = splitter.feed(new TextDecoder().decode(head.subarray(0, bytesRead), { stream: true }))
        if (bytesRead === size) splitter.end()
      } catch {
        return { problem: "it is not JSON, a zip nor an SQLite database" }
      }
      const readable = (format: FileFormat) =>
        records.filter((record) => {
          try {
            return parseRecord(format, JSON.parse(record))._tag !== "invalid"
          } catch {
            return false
          }
        }).length
      const listenbrainz = readable("listenbrainz_export")
      const spotify = readable("spotify_extended")
      if (listenbrainz === 0 && spotify === 0)
        return { problem: "its records are neither ListenBrainz listens nor Spotify streams" }
      return { source: spotify > listenbrainz ? "spotify_extended" : "listenbrainz_export" }
    } finally {
      await handle.close()
    }
  })()

const sourceOf = (filePath: string, flags: ImportFlags) =>
  Effect.gen(function* () {
    if (flags.source !== undefined) {
      const given = FILE_SOURCES.find((source) => source === flags.source)
      if (given === undefined)
        return yield* new CliError({
          message: `--source ${flags.source}: give one of ${FILE_SOURCES.join(", ")} (a Last.fm pull is started from the web page)`,
        })
      return given
    }
    const detected = yield* Effect.tryPromise({
      try: () => detectSource(filePath),
      catch: (error) => new CliError({ message: `cannot read ${filePath}: ${(error as Error).message}` }),
    })
    if ("problem" in detected)
      return yield* new CliError({
        message: `cannot tell which export ${filePath} is (${detected.problem}): pass --source ${FILE_SOURCES.join("|")}`,
      })
    return detected.source
  })

// ---- Progress on the terminal ----

const BAR_WIDTH = 30

/** 12.3 MB, or 4.5 KB under a megabyte. */
const sizeOf = (bytes: number) =>
  bytes < 1_048_576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`

/** The upload: a redrawn bar on a terminal; on a pipe, one line per 10 %. */
const uploadPrinter = (name: string) => {
  const tty = process.stderr.isTTY === true
  let lastDecile = -1
  return (sent: number, total: number) => {
    const ratio = total === 0 ? 1 : Math.min(1, sent / total)
    const percent = Math.floor(ratio * 100)
    const line = `uploading ${name}: ${sizeOf(sent)} of ${sizeOf(total)}`
    if (tty) {
      const filled = Math.round(ratio * BAR_WIDTH)
      process.stderr.write(`\r\x1b[2K[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${percent}% ${line}`)
      if (sent >= total) process.stderr.write("\n")
    } else if (Math.floor(percent / 10) > lastDecile) {
      lastDecile = Math.floor(percent / 10)
      process.stderr.write(`${percent}% ${line}\n`)
    }
  }
}

const countsLine = (status: Pick<ImportStatus, "total" | "matched" | "unmatched" | "duplicates">) =>
  `${status.total} read · ${status.matched} matched · ${status.unmatched} unmatched · ${status.duplicates} already there`

/** The import's counters: a redrawn line on a terminal; on a pipe, a line when they moved (at most every 2 s). */
const statusPrinter = () => {
  const tty = process.stderr.isTTY === true
  let lastLine = ""
  let lastAt = 0
  let spin = 0
  return (status: ImportStatus) =>
    Effect.sync(() => {
      const active = status.state === "queued" || status.state === "running"
      const line = `${status.state === "queued" ? "waiting to start" : `importing (${status.state})`}: ${countsLine(status)}`
      if (tty) {
        // The total is not known ahead (read so far): a moving marker instead of a percentage.
        const at = spin++ % BAR_WIDTH
        const bar = active ? `[${".".repeat(at)}#${".".repeat(BAR_WIDTH - at - 1)}]` : `[${"#".repeat(BAR_WIDTH)}]`
        process.stderr.write(`\r\x1b[2K${bar} ${line}`)
        if (!active) process.stderr.write("\n")
        return
      }
      const now = Date.now()
      if (line !== lastLine && (now - lastAt >= 2_000 || !active || lastLine === "")) {
        process.stderr.write(`${line}\n`)
        lastLine = line
        lastAt = now
      }
    })
}

const iso = (at: DateTime.Utc | null) => (at === null ? null : DateTime.formatIso(at))
const whenOf = (at: DateTime.Utc) => DateTime.formatIso(at).slice(0, 16).replace("T", " ")

/** How many unmatched entries are listed without --all-unmatched. */
const UNMATCHED_SHOWN = 100

/** The outcome, on standard output: the summary line, then the entries that matched no track. */
const report = (
  flags: ImportFlags,
  status: ImportStatus,
  owner: string | null,
  unmatched: ReadonlyArray<UnmatchedListen>,
) =>
  Effect.gen(function* () {
    if (flags.json) {
      yield* Effect.sync(() =>
        console.log(
          JSON.stringify(
            {
              ...status,
              started_at: iso(status.started_at),
              finished_at: iso(status.finished_at),
              unmatched_entries: unmatched.map((entry) => ({ ...entry, listened_at: iso(entry.listened_at) })),
            },
            null,
            2,
          ),
        ),
      )
    } else {
      yield* Effect.sync(() => {
        const into = owner === null ? "" : ` into ${owner}'s history`
        console.log(
          `imported ${SOURCE_NAMES[status.source]}${into}: ${status.total} read, ${status.matched} matched (${status.duplicates} already there), ${status.unmatched} unmatched`,
        )
        if (status.message !== null && status.state === "done") console.log(status.message)
        if (unmatched.length > 0) {
          console.log(`unmatched (${status.unmatched}):`)
          for (const entry of unmatched)
            console.log(
              `  ${whenOf(entry.listened_at)}  ${entry.artist || "(no artist)"} — ${entry.title || "(no title)"}${entry.album === null ? "" : ` (${entry.album})`}${entry.reason === "incomplete" ? "  [incomplete]" : ""}`,
            )
          if (status.unmatched > unmatched.length)
            console.log(`  … and ${status.unmatched - unmatched.length} more (--all-unmatched lists them all)`)
        }
      })
    }
    if (status.state === "failed")
      return yield* new CliError({ message: `the import failed: ${status.message ?? "see the server log"}` })
  })

/** Pages through the unmatched entries: the first 100, or all of them. */
const collectUnmatched = <E>(
  flags: ImportFlags,
  status: ImportStatus,
  page: (
    cursor: string | undefined,
  ) => Effect.Effect<{ items: ReadonlyArray<UnmatchedListen>; cursor: string | null }, E>,
) =>
  Effect.gen(function* () {
    const wanted = flags.allUnmatched || flags.json ? Number.POSITIVE_INFINITY : UNMATCHED_SHOWN
    const entries: Array<UnmatchedListen> = []
    if (status.unmatched === 0) return entries
    let cursor: string | undefined
    while (entries.length < wanted) {
      const next = yield* page(cursor)
      entries.push(...next.items)
      if (next.cursor === null) break
      cursor = next.cursor
    }
    return entries.slice(0, wanted)
  })

const isActive = (status: ImportStatus) => status.state === "queued" || status.state === "running"

/** How often an import's status is read while it runs. */
const POLL_MS = 400

// ---- Through the running server ----

const decodeCreated = Schema.decodeUnknown(ImportCreated)

/** The bearer token the session uses (the flag, TONEARM_TOKEN, else the stored login), for the raw upload. */
const tokenOf = (flags: ImportFlags, server: Remote) =>
  Effect.map(
    storedLogin(server.url, server.publicUrl),
    (login) =>
      flags.token || process.env.TONEARM_TOKEN || Option.getOrUndefined(Option.map(login, (stored) => stored.token)),
  )

/**
 * Streams the file as a multipart upload (constant memory, whatever its size) and reports the bytes sent: the SDK
 * would read the whole file into a Blob and tell nothing of its progress.
 */
const upload = (
  server: Remote,
  route: "/api/me/imports" | "/api/admin/imports",
  token: string,
  filePath: string,
  source: FileSource,
) =>
  Effect.tryPromise({
    try: async () => {
      const size = (await fs.promises.stat(filePath)).size
      const boundary = `----tonearm${randomBytes(12).toString("hex")}`
      const fileName = path.basename(filePath).replace(/["\r\n]/g, "_")
      const head = Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="source"\r\n\r\n${source}\r\n` +
          `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${fileName}"\r\n` +
          "content-type: application/octet-stream\r\n\r\n",
      )
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
      const show = uploadPrinter(path.basename(filePath))
      async function* parts() {
        yield head
        let sent = 0
        for await (const chunk of fs.createReadStream(filePath, { highWaterMark: 256 * 1024 })) {
          sent += (chunk as Buffer).length
          show(sent, size)
          yield chunk as Buffer
        }
        if (size === 0) show(0, 0)
        yield tail
      }
      const response = await fetch(`${server.url}${route}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "content-length": String(head.length + size + tail.length),
        },
        body: Readable.toWeb(Readable.from(parts())) as ReadableStream,
        duplex: "half",
      } as RequestInit)
      const text = await response.text()
      return { status: response.status, text }
    },
    catch: (error) =>
      new CliError({
        message: `the upload to ${server.url} failed: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`,
      }),
  }).pipe(
    Effect.flatMap(({ status, text }) => {
      if (status === 202)
        return decodeCreated(JSON.parse(text)).pipe(
          Effect.mapError(() => new CliError({ message: `${server.url} answered 202 without an import id` })),
        )
      let said = `answered ${status}`
      try {
        const body = JSON.parse(text) as { error?: { message?: string } }
        if (typeof body.error?.message === "string") said = body.error.message
      } catch {
        // not the error envelope: the status says it
      }
      if (status === 401)
        return Effect.fail(
          new CliError({ message: `not logged in to ${server.url}: run tonearm login (or pass --token)` }),
        )
      return Effect.fail(new CliError({ message: `${server.url} refused the import: ${said}` }))
    }),
  )

const followOnServer = (client: TonearmClient, id: ImportId, admin: boolean, flags: ImportFlags) =>
  Effect.gen(function* () {
    const show = flags.json ? () => Effect.void : statusPrinter()
    const read = admin ? client.adminImports.get({ path: { id } }) : client.imports.get({ path: { id } })
    let status = yield* read
    yield* show(status)
    while (isActive(status)) {
      yield* Effect.sleep(POLL_MS)
      status = yield* read
      yield* show(status)
    }
    return status
  })

const importOnServer = (filePath: string, source: FileSource, flags: ImportFlags, session: Session) =>
  Effect.gen(function* () {
    const { client } = session
    const me = yield* client.me.get()
    const admin = source === "navidrome_db"
    if (admin && !me.is_admin)
      return yield* new CliError({
        message: `a navidrome.db is imported by an admin (for every user at once); ${me.username} is not one`,
      })
    if (!admin && flags.user !== undefined && flags.user.trim().toLowerCase() !== me.username.toLowerCase())
      return yield* new CliError({
        message: `the server imports into the signed-in user's history (${me.username}), not ${flags.user}: log in as ${flags.user} (tonearm login --username ${flags.user}) or pass their --token`,
      })
    const token = yield* tokenOf(flags, session.server)
    if (token === undefined) return yield* notSignedIn(session.server)
    const created = yield* upload(
      session.server,
      admin ? "/api/admin/imports" : "/api/me/imports",
      token,
      filePath,
      source,
    )
    const status = yield* followOnServer(client, created.id, admin, flags)
    // An admin's Navidrome import spans users: its unmatched entries are not the caller's to list.
    const unmatched = admin
      ? []
      : yield* collectUnmatched(flags, status, (cursor) =>
          client.imports.unmatched({
            path: { id: created.id },
            urlParams: cursor === undefined ? { limit: 500 } : { limit: 500, cursor },
          }),
        )
    return yield* report(flags, status, admin ? null : me.username, unmatched)
  })

// ---- In the data directory, with no server running ----

const importHere = (filePath: string, source: FileSource, flags: ImportFlags, target: Local) =>
  Effect.gen(function* () {
    yield* requireDatabase(target, flags.databaseUrl)
    return yield* Effect.gen(function* () {
      const accounts = yield* AccountsService
      const imports = yield* ImportService
      const admin = source === "navidrome_db"
      const owner = yield* Effect.gen(function* () {
        if (flags.user === undefined) {
          if (!admin)
            return yield* new CliError({ message: "--user NAME: whose history this is (no server is running)" })
          const first = (yield* accounts.listUsers()).find((user) => user.is_admin)
          if (first === undefined) return yield* new CliError({ message: "no admin account: create one first" })
          return { id: first.id as UserId, username: first.username }
        }
        const found = yield* accounts.userByName(flags.user)
        if (Option.isNone(found)) return yield* new CliError({ message: `no user named ${flags.user}` })
        return { id: found.value.id as UserId, username: found.value.username }
      })
      // The job takes its own copy (removed when it ends); the file given stays where it is.
      yield* Effect.promise(() => fs.promises.mkdir(imports.uploadsDir, { recursive: true }))
      const copy = path.join(imports.uploadsDir, `${randomUUID()}.upload`)
      yield* Effect.promise(() => fs.promises.copyFile(filePath, copy))
      const upload = { filePath: copy, fileName: path.basename(filePath), source }
      const created = yield* (
        admin ? imports.createAdminUpload(owner.id, upload) : imports.createFromUpload(owner.id, upload)
      ).pipe(Effect.mapError((error) => new CliError({ message: `cannot import ${filePath}: ${error.message}` })))
      // This process runs the queue until its import has ended (an older queued job, too, if one waits).
      const runner = yield* Effect.fork(
        imports.runNext.pipe(
          Effect.flatMap((ran) => (ran ? Effect.void : Effect.sleep(POLL_MS))),
          Effect.forever,
        ),
      )
      const show = flags.json ? () => Effect.void : statusPrinter()
      let status = yield* imports.adminGet(created.id)
      yield* show(status)
      while (isActive(status)) {
        yield* Effect.sleep(POLL_MS)
        status = yield* imports.adminGet(created.id)
        yield* show(status)
      }
      yield* Fiber.interrupt(runner)
      const unmatched = admin
        ? []
        : yield* collectUnmatched(flags, status, (cursor) =>
            imports.unmatched(owner.id, created.id, cursor === undefined ? { limit: 500 } : { limit: 500, cursor }),
          )
      return yield* report(flags, status, admin ? null : owner.username, unmatched)
    }).pipe(
      Effect.provide(ServicesLive.pipe(Layer.provide(DatabaseLive), Layer.provideMerge(TonearmConfig.layer))),
      Effect.withConfigProvider(configProviderFor(flags, recordedOf(target))),
    )
  })

/** `tonearm import <file>`: through the running server when there is one, else straight into the data directory. */
export const importFile = (file: string, flags: ImportFlags) =>
  runCommand(
    Effect.gen(function* () {
      const filePath = resolvePath(file)
      if (!fs.existsSync(filePath) || !fs.statSync(filePath).isFile())
        return yield* new CliError({ message: `no file ${filePath}` })
      const source = yield* sourceOf(filePath, flags)
      const target = yield* locate(flags)
      if (target._tag === "Local") return yield* importHere(filePath, source, flags, target)
      const session = yield* sessionOn(target, flags)
      if (!session.signedIn) return yield* notSignedIn(target)
      return yield* importOnServer(filePath, source, flags, session).pipe(explained(session))
    }),
  )
