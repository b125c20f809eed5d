import { describe, expect, it } from "@effect/vitest"
import { checkArchitecture, tablesWritten } from "../../../scripts/check-architecture.js"

const S = "packages/server/src"
const tree = (files: Record<string, string>) => new Map(Object.entries(files))
/** `${expr}` inside a source text, without writing a placeholder into a plain string. */
const subst = (expr: string) => ["$", "{", expr, "}"].join("")
const messages = (files: Record<string, string>) =>
  checkArchitecture(tree(files)).map((v) => `${v.check}: ${v.message}`)

/** A small server that follows every rule: service → repository, SQL only in the repository. */
const clean = {
  [`${S}/plays/PlaysService.ts`]: [
    'import { SqlClient } from "@effect/sql"',
    'import { PlayRepository } from "./PlayRepository.js"',
    'import type { Play } from "./types.js"',
    '// not a cycle: sql`SELECT 1` in a comment, and a string that says "UPDATE plays SET x"',
    "export const record = (p: Play) => Effect.gen(function* () {",
    "  const sql = yield* SqlClient.SqlClient",
    "  yield* PlayRepository.insert(p).pipe(sql.withTransaction)",
    "})",
  ].join("\n"),
  [`${S}/plays/PlayRepository.ts`]: [
    'import type { Play } from "./types.js"',
    "const sql = yield* SqlClient.SqlClient",
    "export const insert = (p: Play) => sql`INSERT INTO plays (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id`",
    "export const claim = sql<{ id: string }>`SELECT id FROM plays FOR UPDATE SKIP LOCKED`",
    "export const columns = sql.literal('id')",
  ].join("\n"),
  [`${S}/plays/types.ts`]: "export interface Play { readonly id: string }",
  [`${S}/db/migrations/0001_plays.ts`]:
    "export default sql`CREATE TABLE plays (id uuid); INSERT INTO plays VALUES (gen_random_uuid())`",
  [`${S}/db/Database.ts`]: 'export const ping = sql.unsafe("SELECT 1")',
  "packages/cli/src/bin.ts": 'import { record } from "@tonearm/server"\nawait import("./run.js")',
  "packages/cli/src/run.ts": 'export const run = () => import("@tonearm/server")',
}

describe("check-architecture", () => {
  it("passes a clean tree", () => {
    expect(messages(clean)).toEqual([])
  })

  describe("import cycles", () => {
    it("finds a two-file cycle and resolves ./x.js to x.ts", () => {
      expect(
        messages({
          "packages/cli/src/actions/scan.ts": 'import type { ScanFlags } from "../commands/scan.js"',
          "packages/cli/src/commands/scan.ts":
            'export const go = async () => (await import("../actions/scan.js")).scan()',
        }),
      ).toEqual([
        "cycle: import cycle: packages/cli/src/actions/scan.ts -> packages/cli/src/commands/scan.ts -> packages/cli/src/actions/scan.ts",
      ])
    })

    it("follows re-exports and index files, and prints the whole loop", () => {
      expect(
        messages({
          [`${S}/http/connection.ts`]: 'import { TrustedProxies } from "../settings"',
          [`${S}/settings/index.ts`]: 'export { TrustedProxiesHttpLive } from "./TrustedProxiesHttp.js"',
          [`${S}/settings/TrustedProxiesHttp.ts`]: 'import { connectionFacts } from "../http/connection.js"',
        }),
      ).toEqual([
        `cycle: import cycle: ${S}/http/connection.ts -> ${S}/settings/index.ts -> ${S}/settings/TrustedProxiesHttp.ts -> ${S}/http/connection.ts`,
        // The same loop crosses two server folders, so it is a domain cycle as well.
        `domain: domain cycle: http -> settings -> http (${S}/http/connection.ts -> ${S}/settings/index.ts; ${S}/settings/TrustedProxiesHttp.ts -> ${S}/http/connection.ts)`,
      ])
    })

    it("counts import type, import() types and .mjs files", () => {
      expect(
        messages({
          [`${S}/a.ts`]: 'export type B = import("./b.js").B',
          [`${S}/b.ts`]: 'import type { A } from "./a.js"\nexport type B = A',
          [`${S}/w.mjs`]: 'import "./v.mjs"',
          [`${S}/v.mjs`]: 'export * from "./w.mjs"',
        }),
      ).toHaveLength(2)
    })

    it("ignores package imports and imports written in comments or strings", () => {
      expect(
        messages({
          [`${S}/a.ts`]:
            '// import "./b.js"\nexport const text = \'import { a } from "./b.js"\'\nimport "@tonearm/core"',
          [`${S}/b.ts`]: 'import { text } from "./a.js"',
        }),
      ).toEqual([])
    })
  })

  describe("domain folders", () => {
    it("finds a cycle between server domain folders even when no file cycle exists", () => {
      expect(
        messages({
          [`${S}/library/Scanner.ts`]: 'import { ChangeLog } from "../sync/ChangeLog.js"',
          [`${S}/sync/ChangeLog.ts`]: "export const ChangeLog = 1",
          [`${S}/sync/SyncService.ts`]: 'import { Library } from "../library/index.js"',
          [`${S}/library/index.ts`]: "export const Library = 1",
        }),
      ).toEqual([
        `domain: domain cycle: library -> sync -> library (${S}/library/Scanner.ts -> ${S}/sync/ChangeLog.ts; ${S}/sync/SyncService.ts -> ${S}/library/index.ts)`,
      ])
    })

    it("lets a domain lean on another one way, and root files (main.ts) import every domain", () => {
      expect(
        messages({
          [`${S}/library/Scanner.ts`]: 'import { ChangeLog } from "../changes/index.js"',
          [`${S}/changes/index.ts`]: "export const ChangeLog = 1",
          [`${S}/sync/SyncService.ts`]:
            'import { ChangeLog } from "../changes/index.js"\nimport "../library/Scanner.js"',
          [`${S}/main.ts`]: 'import "./library/Scanner.js"\nimport "./sync/SyncService.js"',
        }),
      ).toEqual([])
    })

    it("flags a repository imported from another domain's folder", () => {
      expect(
        messages({
          ...clean,
          [`${S}/home/HomeService.ts`]: 'import { PlayRepository } from "../plays/PlayRepository.js"',
        }),
      ).toEqual([
        `repository: ${S}/home/HomeService.ts imports ${S}/plays/PlayRepository.ts: use the plays service instead`,
      ])
    })
  })

  describe("web layers (state ← components ← pages ← shell ← main)", () => {
    const W = "packages/web/src"
    /** A small web app that follows the layer order; JSX in .tsx files, imported as `./x.js`. */
    const web = {
      [`${W}/main.tsx`]: 'import { Shell } from "./shell/Shell.js"\nimport "./state/queueSync.js"',
      [`${W}/shell/Shell.tsx`]: [
        'import { routes } from "./routes.js"',
        'import { session } from "../state/session.js"',
        'import { Cover } from "../components/Cover.js"',
        "export const Shell = () => <main>{session.value}<Cover /></main>",
      ].join("\n"),
      [`${W}/shell/routes.tsx`]: [
        'import type { PageProps } from "../state/router.js"',
        'export const routes = [{ load: () => import("../pages/library/AlbumPage.js") }]',
      ].join("\n"),
      [`${W}/pages/library/AlbumPage.tsx`]: [
        'import type { PageProps } from "../../state/router.js"',
        'import { Cover } from "../../components/Cover.js"',
        'import { Tracks } from "./Tracks.js"',
        "export default ({ params }: PageProps) => <Cover id={params.id}><Tracks /></Cover>",
      ].join("\n"),
      [`${W}/pages/library/Tracks.tsx`]: "export const Tracks = () => <ol />",
      [`${W}/components/Cover.tsx`]: [
        'import { api } from "../state/api.js"',
        // An import written in JSX text is not an import.
        "export const Cover = () => <img alt='import \"../shell/Shell.js\"' src={api} />",
      ].join("\n"),
      [`${W}/state/router.ts`]: "export interface PageProps { readonly params: Record<string, string> }",
      [`${W}/state/session.ts`]: 'import { api } from "./api.js"\nexport const session = api',
      [`${W}/state/api.ts`]: "export const api = 1",
      [`${W}/state/queueSync.ts`]: 'import { session } from "./session.js"',
      [`${W}/sw/sw.ts`]: 'import { rules } from "./rules.js"',
      [`${W}/sw/rules.ts`]: "export const rules = 1",
      [`${W}/shims/node-crypto.ts`]: "export const randomUUID = () => crypto.randomUUID()",
    }

    it("passes an app whose every import runs down the layers", () => {
      expect(messages(web)).toEqual([])
    })

    it("finds the circle of a page importing PageProps from the route registry that loads it", () => {
      expect(
        messages({
          ...web,
          [`${W}/shell/routes.tsx`]: [
            "export interface PageProps { readonly params: Record<string, string> }",
            'export const routes = [{ load: () => import("../pages/library/AlbumPage.js") }]',
          ].join("\n"),
          [`${W}/pages/library/AlbumPage.tsx`]: [
            'import type { PageProps } from "../../shell/routes.js"',
            "export default ({ params }: PageProps) => <h1>{params.id}</h1>",
          ].join("\n"),
        }),
      ).toEqual([
        `cycle: import cycle: ${W}/pages/library/AlbumPage.tsx -> ${W}/shell/routes.tsx -> ${W}/pages/library/AlbumPage.tsx`,
        `web: ${W}/pages/library/AlbumPage.tsx imports ${W}/shell/routes.tsx: pages is below shell (state ← components ← pages ← shell ← main)`,
      ])
    })

    it("flags every upward import, a page reaching into another area, JSX in state/ and a file in no layer", () => {
      expect(
        messages({
          ...web,
          [`${W}/components/addToPlaylist.ts`]: 'import { startRadio } from "../pages/library/Tracks.js"',
          [`${W}/state/player.ts`]: 'import type { Shell } from "../shell/Shell.js"',
          [`${W}/state/Banner.tsx`]: "export const Banner = () => <p />",
          [`${W}/pages/admin/TrendsPage.tsx`]: 'import { Tracks } from "../library/Tracks.js"',
          [`${W}/pages/home/HomePage.tsx`]: 'import { rules } from "../../sw/rules.js"',
          [`${W}/app/keyboard.tsx`]: 'import { api } from "../state/api.js"',
        }),
      ).toEqual([
        `web: ${W}/app/keyboard.tsx is in no web layer (state, components, pages, shell, main, sw)`,
        `web: ${W}/components/addToPlaylist.ts imports ${W}/pages/library/Tracks.tsx: components is below pages (state ← components ← pages ← shell ← main)`,
        `web: ${W}/pages/admin/TrendsPage.tsx imports ${W}/pages/library/Tracks.tsx: a page imports only its own area; move what areas share to components/`,
        `web: ${W}/pages/home/HomePage.tsx imports ${W}/sw/rules.ts: the service worker shares no module with the app`,
        `web: ${W}/state/Banner.tsx: state/ holds no JSX (a component belongs in components/)`,
        `web: ${W}/state/player.ts imports ${W}/shell/Shell.tsx: state is below shell (state ← components ← pages ← shell ← main)`,
      ])
    })
  })

  describe("SQL placement", () => {
    it("flags every SQL form outside a repository, with file and line", () => {
      expect(
        messages({
          [`${S}/library/Scanner.ts`]: [
            "const sql = yield* SqlClient.SqlClient",
            "yield* sql`SELECT 1`",
            "yield* sql<{ n: number }>`SELECT 2`",
            "yield* sql.unsafe('SELECT 3')",
            "const cols = sql.literal('a, b')",
            "yield* work.pipe(sql.withTransaction)",
          ].join("\n"),
          [`${S}/events/EventBus.ts`]: "const pg = yield* PgClient.PgClient\nyield* pg`SELECT pg_notify('x', '')`",
        }),
      ).toEqual([
        `sql: SQL outside a repository: ${S}/events/EventBus.ts:2 uses pg\` (move it into a *Repository.ts)`,
        `sql: SQL outside a repository: ${S}/library/Scanner.ts:2 uses sql\` (move it into a *Repository.ts)`,
        `sql: SQL outside a repository: ${S}/library/Scanner.ts:3 uses sql<…>\` (move it into a *Repository.ts)`,
        `sql: SQL outside a repository: ${S}/library/Scanner.ts:4 uses sql.unsafe( (move it into a *Repository.ts)`,
        `sql: SQL outside a repository: ${S}/library/Scanner.ts:5 uses sql.literal( (move it into a *Repository.ts)`,
      ])
    })

    it("leaves repositories, db/ and other packages alone", () => {
      expect(
        messages({
          [`${S}/library/ScanRepository.ts`]: "sql`SELECT 1`",
          [`${S}/db/EmbeddedPostgres.ts`]: "sql.unsafe(`CREATE DATABASE x`)",
          "packages/core/src/doc.ts": "export const example = sql`SELECT 1`",
        }),
      ).toEqual([])
    })
  })

  describe("one writer per table", () => {
    it("names the table and every file that writes it", () => {
      expect(
        messages({
          ...clean,
          [`${S}/listening/PlayRepository.ts`]:
            "sql`INSERT INTO rotation_states (user_id) VALUES (1)`\nsql`delete from plays where id = 2`",
          [`${S}/playlists/PlaylistRepository.ts`]: "sql`UPDATE Rotation_States SET played = '{}' WHERE user_id = 1`",
        }),
      ).toEqual([
        `table: table plays is written from 2 files: ${S}/listening/PlayRepository.ts, ${S}/plays/PlayRepository.ts`,
        `table: table rotation_states is written from 2 files: ${S}/listening/PlayRepository.ts, ${S}/playlists/PlaylistRepository.ts`,
      ])
    })

    it("reads SQL around substitutions", () => {
      expect(
        messages({
          [`${S}/a/ARepository.ts`]: `sql\`UPDATE likes SET at = ${subst("now")} WHERE id = ${subst("id")}\``,
          [`${S}/b/BRepository.ts`]: `sql\`INSERT INTO ${subst("table")} (id) VALUES (1)\`\nsql.unsafe("DELETE FROM likes")`,
        }),
      ).toEqual([`table: table likes is written from 2 files: ${S}/a/ARepository.ts, ${S}/b/BRepository.ts`])
    })

    it("does not count migrations, reads, upserts' DO UPDATE or row locks", () => {
      expect(
        messages({
          ...clean,
          [`${S}/plays/PlaysReport.ts`]: "const q = sql`SELECT * FROM plays FOR NO KEY UPDATE`",
        }),
      ).toEqual([
        `sql: SQL outside a repository: ${S}/plays/PlaysReport.ts:1 uses sql\` (move it into a *Repository.ts)`,
      ])
    })

    it("reads the written tables from SQL text", () => {
      expect(tablesWritten("insert into public.users (id) values ($1)")).toEqual(["users"])
      expect(tablesWritten('UPDATE ONLY "Sessions" s SET x = 1')).toEqual(["sessions"])
      expect(tablesWritten("DELETE FROM likes USING tracks WHERE likes.id = tracks.id")).toEqual(["likes"])
      expect(tablesWritten("INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2")).toEqual(["t"])
      expect(tablesWritten("SELECT 1 FROM jobs FOR UPDATE SKIP LOCKED")).toEqual([])
      // The catalogue's base tables and their views of present rows are one table.
      expect(tablesWritten("UPDATE indexed_tracks SET missing_since = now()")).toEqual(["tracks"])
      expect(tablesWritten("DELETE FROM indexed_albums a; INSERT INTO artists (id) VALUES (1)")).toEqual([
        "artists",
        "albums",
      ])
    })
  })
})
