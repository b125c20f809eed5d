import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import { pipeline } from "node:stream/promises"
import * as zlib from "node:zlib"
import { Migrator, SqlClient, type SqlError } from "@effect/sql"
import { Data, Effect } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { SERVER_VERSION } from "../version.js"
import { migrations } from "./Migrations.js"

/**
 * `tonearm backup <file>` and `tonearm restore <file>` (issue 30 item 3). A backup is one gzip file of JSON lines:
 * a header (format, server version, the schema's migration, the data directory's secrets), then for each table a
 * `{"table": name}` line followed by one line per row (`row_to_json`). Every table is read in one REPEATABLE READ
 * READ ONLY transaction, so the dump is one consistent snapshot while the server keeps serving. The dump is made by
 * the server's own connection (no `pg_dump`: the embedded PostgreSQL ships none, and a system one older than the
 * server refuses to dump it); the schema itself is not dumped: restore recreates it with the migrations.
 */
export class BackupError extends Data.TaggedError("BackupError")<{ readonly message: string }> {}

/** The data directory's secrets: the stream-URL signing key and the Subsonic key. Caches are rebuilt, not saved. */
export const SECRET_FILES = ["stream_secret", "subsonic_key"] as const

const FORMAT = "tonearm-backup"
const FORMAT_VERSION = 1
const MIGRATIONS_TABLE = "effect_sql_migrations"
/** Rows per FETCH on the dump side and per INSERT on the restore side. */
const BATCH = 2000

interface Header {
  readonly format: typeof FORMAT
  readonly formatVersion: number
  readonly serverVersion: string
  readonly migration: number
  readonly createdAt: string
  readonly secrets: Record<string, string>
}

export interface BackupSummary {
  readonly tables: number
  readonly rows: number
  readonly migration: number
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** The tables of the current schema, parents before children (foreign keys), the migrations' own table aside. */
const tablesInOrder = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const tables = (yield* sql<{ name: string }>`
      SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`)
      .map((row) => row.name)
      .filter((name) => name !== MIGRATIONS_TABLE)
    const edges = yield* sql<{ child: string; parent: string }>`
      SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
      FROM pg_constraint c WHERE c.contype = 'f' AND c.conrelid <> c.confrelid`
    const parents = new Map<string, Set<string>>(tables.map((name) => [name, new Set<string>()]))
    for (const edge of edges) parents.get(edge.child.replaceAll('"', ""))?.add(edge.parent.replaceAll('"', ""))
    const ordered: Array<string> = []
    const placed = new Set<string>()
    while (ordered.length < tables.length) {
      const ready = tables.filter(
        (name) => !placed.has(name) && [...(parents.get(name) ?? [])].every((p) => placed.has(p) || !parents.has(p)),
      )
      // A cycle (none today) is placed as is: the restore defers nothing, so it would fail loudly, not silently.
      const next = ready.length > 0 ? ready : tables.filter((name) => !placed.has(name))
      for (const name of next) {
        ordered.push(name)
        placed.add(name)
      }
    }
    return ordered
  })

const latestApplied = (sql: SqlClient.SqlClient) =>
  sql<{ latest: number }>`SELECT coalesce(max(migration_id), 0)::int AS latest FROM effect_sql_migrations`.pipe(
    Effect.map((rows) => rows[0]?.latest ?? 0),
  )

const readSecrets = (dataDir: string): Record<string, string> => {
  const secrets: Record<string, string> = {}
  for (const name of SECRET_FILES) {
    const file = path.join(dataDir, name)
    if (fs.existsSync(file)) secrets[name] = fs.readFileSync(file, "utf8")
  }
  return secrets
}

/**
 * Writes a consistent backup of the database and the data directory's secrets to `file` (replaced atomically:
 * written beside it, then renamed). `progress` hears each table as it is done.
 */
export const backupTo = (file: string, progress: (line: string) => void = () => {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TonearmConfig
    const partial = `${file}.partial-${process.pid}`
    const gzip = zlib.createGzip()
    const out = fs.createWriteStream(partial, { mode: 0o600 })
    const done = Effect.promise(() => pipeline(gzip, out))
    const write = (line: string) =>
      Effect.async<void>((resume) => {
        if (gzip.write(`${line}\n`)) resume(Effect.void)
        else gzip.once("drain", () => resume(Effect.void))
      })

    const summary = yield* Effect.gen(function* () {
      yield* sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`
      const migration = yield* latestApplied(sql)
      const header: Header = {
        format: FORMAT,
        formatVersion: FORMAT_VERSION,
        serverVersion: SERVER_VERSION,
        migration,
        createdAt: new Date().toISOString(),
        secrets: readSecrets(config.dataDir),
      }
      yield* write(JSON.stringify(header))
      const tables = yield* tablesInOrder(sql)
      let total = 0
      for (const table of tables) {
        yield* write(JSON.stringify({ table }))
        yield* sql.unsafe(
          `DECLARE tonearm_backup NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS j FROM ${quote(table)} t`,
        )
        let rows = 0
        for (;;) {
          const batch = yield* sql.unsafe<{ j: string }>(`FETCH ${BATCH} FROM tonearm_backup`)
          for (const row of batch) yield* write(row.j)
          rows += batch.length
          if (batch.length < BATCH) break
        }
        yield* sql.unsafe("CLOSE tonearm_backup")
        total += rows
        progress(`${table}: ${rows} rows`)
      }
      return { tables: tables.length, rows: total, migration } satisfies BackupSummary
    }).pipe(
      sql.withTransaction,
      Effect.onError(() => Effect.sync(() => gzip.destroy())),
    )
    gzip.end()
    yield* done
    fs.renameSync(partial, file)
    return summary
  })

/** Reads a backup file's header (and checks it is one). */
const openBackup = (file: string) =>
  Effect.gen(function* () {
    if (!fs.existsSync(file)) return yield* new BackupError({ message: `no backup at ${file}` })
    const lines = readline.createInterface({
      input: fs.createReadStream(file).pipe(zlib.createGunzip()),
      crlfDelay: Number.POSITIVE_INFINITY,
    })
    const iterator = lines[Symbol.asyncIterator]()
    const first = yield* Effect.tryPromise({
      try: () => iterator.next(),
      catch: () => new BackupError({ message: `${file} is not a Tonearm backup (not gzip)` }),
    })
    let header: Header | undefined
    try {
      header = first.done ? undefined : (JSON.parse(first.value) as Header)
    } catch {
      header = undefined
    }
    if (header?.format !== FORMAT || header.formatVersion !== FORMAT_VERSION) {
      lines.close()
      return yield* new BackupError({ message: `${file} is not a Tonearm backup (format ${FORMAT} ${FORMAT_VERSION})` })
    }
    return { header, iterator, close: () => lines.close() }
  })

/** The migrations up to `migration` only: the restored rows fit the schema they were dumped from. */
const migrateUpTo = (migration: number) =>
  Migrator.make({})({
    loader: Migrator.fromRecord(
      Object.fromEntries(Object.entries(migrations).filter(([id]) => Number.parseInt(id, 10) <= migration)),
    ),
  })

/**
 * Restores `file` into the configured database and data directory: the schema is migrated to the backup's
 * migration, every table is emptied and filled in one transaction (user triggers off while rows go in, sequences
 * moved past the restored ids), the secrets are written (mode 0600), then the remaining migrations run. Refused
 * when the database already holds accounts (restore goes into a fresh data directory or an empty database) or
 * when the backup is newer than this version.
 */
export const restoreFrom = (file: string, progress: (line: string) => void = () => {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TonearmConfig
    const { header, iterator, close } = yield* openBackup(file)
    const latest = Math.max(...Object.keys(migrations).map((id) => Number.parseInt(id, 10)))
    if (header.migration > latest)
      return yield* new BackupError({
        message: `the backup's schema (migration ${header.migration}, Tonearm ${header.serverVersion}) is newer than this Tonearm (${latest}): restore with that version or a newer one`,
      })
    yield* migrateUpTo(header.migration)
    const [holds] = yield* sql<{ users: boolean }>`SELECT EXISTS (SELECT 1 FROM users) AS users`
    if (holds?.users === true)
      return yield* new BackupError({
        message: "the database already holds accounts: restore into a fresh data directory or an empty database",
      })

    const restored = yield* Effect.gen(function* () {
      const tables = yield* tablesInOrder(sql)
      if (tables.length > 0) yield* sql.unsafe(`TRUNCATE ${tables.map(quote).join(", ")} CASCADE`)
      for (const table of tables) yield* sql.unsafe(`ALTER TABLE ${quote(table)} DISABLE TRIGGER USER`)
      const columns = yield* sql<{ table_name: string; column_name: string }>`
        SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND is_generated = 'NEVER'
        ORDER BY table_name, ordinal_position`
      const writable = new Map<string, Array<string>>()
      for (const column of columns) {
        const list = writable.get(column.table_name) ?? []
        list.push(quote(column.column_name))
        writable.set(column.table_name, list)
      }
      const counts = new Map<string, number>()
      let table: string | undefined
      let batch: Array<string> = []
      const flush = Effect.suspend((): Effect.Effect<void, BackupError | SqlError.SqlError> => {
        if (table === undefined || batch.length === 0) return Effect.void
        const name = table
        const rows = `[${batch.join(",")}]`
        counts.set(name, (counts.get(name) ?? 0) + batch.length)
        batch = []
        const list = writable.get(name)
        if (list === undefined)
          return Effect.fail(new BackupError({ message: `the backup has a table this schema lacks: ${name}` }))
        const cols = list.join(", ")
        return sql
          .unsafe(
            `INSERT INTO ${quote(name)} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM json_populate_recordset(NULL::${quote(name)}, $1::json)`,
            [rows],
          )
          .pipe(Effect.asVoid)
      })
      for (;;) {
        const next = yield* Effect.promise(() => iterator.next())
        if (next.done) break
        const line = next.value
        if (line.startsWith('{"table":')) {
          yield* flush
          if (table !== undefined) progress(`${table}: ${counts.get(table) ?? 0} rows`)
          table = (JSON.parse(line) as { table: string }).table
          counts.set(table, 0)
          continue
        }
        batch.push(line)
        if (batch.length >= BATCH) yield* flush
      }
      yield* flush
      if (table !== undefined) progress(`${table}: ${counts.get(table) ?? 0} rows`)
      for (const name of tables) yield* sql.unsafe(`ALTER TABLE ${quote(name)} ENABLE TRIGGER USER`)
      // Serial and identity columns continue after the restored ids.
      const sequences = yield* sql<{ table_name: string; column_name: string; sequence: string }>`
        SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) AS sequence
        FROM information_schema.columns
        WHERE table_schema = current_schema()
          AND pg_get_serial_sequence(quote_ident(table_name), column_name) IS NOT NULL`
      for (const sequence of sequences)
        yield* sql.unsafe(
          `SELECT setval('${sequence.sequence.replaceAll("'", "''")}', coalesce((SELECT max(${quote(sequence.column_name)}) FROM ${quote(sequence.table_name)}), 0) + 1, false)`,
        )
      return { tables: counts.size, rows: [...counts.values()].reduce((a, b) => a + b, 0) }
    }).pipe(sql.withTransaction, Effect.ensuring(Effect.sync(close)))

    fs.mkdirSync(config.dataDir, { recursive: true })
    for (const [name, text] of Object.entries(header.secrets)) {
      if (!(SECRET_FILES as ReadonlyArray<string>).includes(name)) continue
      fs.writeFileSync(path.join(config.dataDir, name), text, { mode: 0o600 })
    }
    // The schema moves on to this version's (a backup from an older Tonearm is upgraded here).
    yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations) })
    return { ...restored, migration: header.migration } satisfies BackupSummary
  })
