/**
 * Architecture lint, run by `pnpm test` (and `pnpm lint:architecture`). Over every `.ts`, `.tsx` and `.mjs` file in
 * `packages/<name>/src`:
 *   - no import cycle between files, in any package (relative imports, `import type` and dynamic `import()` included);
 *   - SQL (a `sql` tagged template, `sql.literal(`, `sql.unsafe(`) in the server only in `*Repository.ts`,
 *     or under `db/` (client, migrations, embedded cluster); `sql.withTransaction` is allowed anywhere;
 *   - every table is written (INSERT INTO / UPDATE / DELETE FROM) from one file only (migrations aside);
 *   - the server's domain folders import each other without a cycle, and a repository is imported only
 *     from its own folder (other domains go through its service);
 *   - the web app (`packages/web/src`) imports only downward through its layers (WEB_LAYERS below).
 * The checks are a pure function over {path → source} so they are unit-tested on small in-memory trees.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import ts from "typescript"

export type ArchitectureCheck = "cycle" | "domain" | "repository" | "sql" | "table" | "web"

export interface Violation {
  readonly check: ArchitectureCheck
  /** One line naming the files involved. */
  readonly message: string
}

/** Repository-relative POSIX paths (`packages/server/src/x.ts`) to source text. */
export type SourceTree = ReadonlyMap<string, string>

const SERVER_SRC = "packages/server/src/"
const DB_DIR = `${SERVER_SRC}db/`
const MIGRATIONS_DIR = `${DB_DIR}migrations/`
const WEB_SRC = "packages/web/src/"

/**
 * The web app's layers, lowest first. A file imports its own layer or a lower one, never a higher one:
 *
 *   state  ←  components  ←  pages  ←  shell  ←  main.tsx
 *
 * - state/: signals and stores (player, queue, session, api client, events, likes, offline, cast) and pure rules;
 *   no JSX, so every file is `.ts`.
 * - components/: widgets shared by pages and the shell.
 * - pages/<area>/: one folder per area; a page imports its own area, components and state, never another area
 *   (what two areas share moves down to components/) and never the shell.
 * - shell/: the frame around the pages (Shell, player bar, Now Playing, sign-in, the route registry, which loads
 *   every page).
 * - main.tsx: the entry.
 * sw/ is the service worker, built alone: it imports only sw/, and nothing else imports it.
 */
const WEB_LAYERS = ["state", "components", "pages", "shell", "main"] as const
type WebLayer = (typeof WEB_LAYERS)[number] | "sw"

/** What one file says that the checks need, read from its syntax tree (so comments and strings never count). */
interface FileFacts {
  readonly imports: ReadonlyArray<string>
  /** Line and form of each SQL use (`sql\``, `sql.unsafe(`, …). */
  readonly sqlUses: ReadonlyArray<{ readonly line: number; readonly form: string }>
  /** The text of each SQL statement or fragment, substitutions replaced by `?`. */
  readonly sqlTexts: ReadonlyArray<string>
}

// A client bound under another name (`const pg = yield* PgClient.PgClient`) is SQL all the same.
const CLIENT_BINDING = /^yield\*\s*(?:SqlClient|PgClient)\.(?:SqlClient|PgClient)$/

const isTestFile = (file: string) => /\.test\.(?:[cm]?ts|tsx)$/.test(file)

const readFacts = (file: string, text: string): FileFacts => {
  const kind =
    file.endsWith(".mjs") || file.endsWith(".js")
      ? ts.ScriptKind.JS
      : file.endsWith(".tsx")
        ? ts.ScriptKind.TSX
        : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const imports: Array<string> = []
  const sqlUses: Array<{ line: number; form: string }> = []
  const sqlTexts: Array<string> = []
  const clientNames = new Set(["sql"])
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1

  const templateText = (node: ts.Node): string | undefined => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text
    if (ts.isTemplateExpression(node))
      return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("?")
    return undefined
  }

  const collectBindings = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
      if (CLIENT_BINDING.test(node.initializer.getText(source).replace(/\s+/g, " "))) clientNames.add(node.name.text)
    }
    ts.forEachChild(node, collectBindings)
  }
  collectBindings(source)

  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) imports.push(node.moduleSpecifier.text)
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      imports.push(node.argument.literal.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments
      if (specifier !== undefined && ts.isStringLiteralLike(specifier)) imports.push(specifier.text)
    } else if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && clientNames.has(node.tag.text)) {
      const generic = node.typeArguments !== undefined ? "<…>" : ""
      sqlUses.push({ line: lineOf(node), form: `${node.tag.text}${generic}\`` })
      const text = templateText(node.template)
      if (text !== undefined) sqlTexts.push(text)
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      clientNames.has(node.expression.expression.text) &&
      (node.expression.name.text === "unsafe" || node.expression.name.text === "literal")
    ) {
      sqlUses.push({ line: lineOf(node), form: `${node.expression.getText(source)}(` })
      const [first] = node.arguments
      const text = first === undefined ? undefined : templateText(first)
      if (text !== undefined) sqlTexts.push(text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return { imports, sqlUses, sqlTexts }
}

/** `./x.js` from `a/b.ts` → `a/x.ts` (or `a/x.tsx`) when that file is in the tree (as the bundler resolution does). */
const resolveRelative = (files: SourceTree, from: string, specifier: string): string | undefined => {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier))
  const stem = target.replace(/\.(?:[cm]?js|[cm]?ts)$/, "")
  const candidates = [
    target,
    target.endsWith(".js") ? `${stem}.ts` : undefined,
    target.endsWith(".js") ? `${stem}.tsx` : undefined,
    target.endsWith(".mjs") ? `${stem}.mts` : undefined,
    `${target}.ts`,
    `${target}.tsx`,
    `${target}/index.ts`,
    `${target}/index.tsx`,
  ]
  return candidates.find((candidate) => candidate !== undefined && files.has(candidate))
}

/** Strongly connected components (Tarjan), each with at least one cycle; sorted for a stable report. */
const knots = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  let next = 0
  const connect = (node: string): void => {
    index.set(node, next)
    low.set(node, next)
    next += 1
    stack.push(node)
    onStack.add(node)
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort())
    }
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node)
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!))
}

/** The shortest cycle through `start` inside its component (breadth-first), as a closed path. */
const shortestCycle = (
  graph: ReadonlyMap<string, ReadonlyArray<string>>,
  members: ReadonlySet<string>,
  start: string,
) => {
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()!
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue
      if (target === start) {
        const cycle = [node]
        while (cycle[0] !== start) cycle.unshift(previous.get(cycle[0]!)!)
        return [...cycle, start]
      }
      if (!previous.has(target)) {
        previous.set(target, node)
        queue.push(target)
      }
    }
  }
  return [start, start]
}

const importCycles = (files: SourceTree, facts: ReadonlyMap<string, FileFacts>): Array<Violation> => {
  const graph = new Map<string, ReadonlyArray<string>>()
  for (const [file, { imports }] of facts) {
    const targets = imports.flatMap((specifier) => resolveRelative(files, file, specifier) ?? [])
    graph.set(file, [...new Set(targets)])
  }
  return knots(graph).map((component) => {
    const cycle = shortestCycle(graph, new Set(component), component[0]!)
    const rest = component.length > cycle.length - 1 ? ` (${component.length} files are tangled in this knot)` : ""
    return { check: "cycle", message: `import cycle: ${cycle.join(" -> ")}${rest}` }
  })
}

/** The server folder a file belongs to (`library` for `packages/server/src/library/scan/read.ts`); none for root files. */
const serverFolderOf = (file: string): string | undefined => {
  if (!file.startsWith(SERVER_SRC)) return undefined
  const rest = file.slice(SERVER_SRC.length)
  const slash = rest.indexOf("/")
  return slash < 0 ? undefined : rest.slice(0, slash)
}

/** Folder-level cycles between the server's domains: a domain may lean on another, never both ways. */
const domainCycles = (files: SourceTree, facts: ReadonlyMap<string, FileFacts>): Array<Violation> => {
  const graph = new Map<string, Set<string>>()
  const via = new Map<string, string>()
  for (const [file, { imports }] of facts) {
    const from = serverFolderOf(file)
    if (from === undefined) continue
    for (const specifier of imports) {
      const target = resolveRelative(files, file, specifier)
      const to = target === undefined ? undefined : serverFolderOf(target)
      if (to === undefined || to === from) continue
      const edges = graph.get(from) ?? new Set<string>()
      edges.add(to)
      graph.set(from, edges)
      if (!via.has(`${from}>${to}`)) via.set(`${from}>${to}`, `${file} -> ${target}`)
    }
  }
  const frozen = new Map([...graph].map(([from, to]) => [from, [...to].sort()] as const))
  return knots(frozen).map((component) => {
    const cycle = shortestCycle(frozen, new Set(component), component[0]!)
    const edges = cycle.slice(1).map((to, i) => via.get(`${cycle[i]}>${to}`))
    return { check: "domain", message: `domain cycle: ${cycle.join(" -> ")} (${edges.join("; ")})` }
  })
}

/** A repository is its folder's own: another folder reaches its table through the owning service. */
const foreignRepositoryImports = (files: SourceTree, facts: ReadonlyMap<string, FileFacts>): Array<Violation> =>
  [...facts]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([file, { imports }]) => {
      const from = serverFolderOf(file)
      if (from === undefined) return []
      return imports.flatMap((specifier) => {
        const target = resolveRelative(files, file, specifier)
        if (target === undefined || !target.endsWith("Repository.ts")) return []
        const owner = serverFolderOf(target)
        return owner === undefined || owner === from
          ? []
          : [{ check: "repository" as const, message: `${file} imports ${target}: use the ${owner} service instead` }]
      })
    })

/** The web layer of a file in `packages/web/src` (undefined for a file no layer claims, itself a violation). */
const webLayerOf = (file: string): WebLayer | undefined => {
  const rest = file.slice(WEB_SRC.length)
  if (rest === "main.tsx" || rest === "main.ts") return "main"
  const folder = rest.split("/")[0]
  return folder === "sw" || (WEB_LAYERS as ReadonlyArray<string>).includes(folder ?? "")
    ? (folder as WebLayer)
    : undefined
}

/** `library` for `packages/web/src/pages/library/AlbumPage.tsx`; "" for a page at the top of pages/. */
const pageAreaOf = (file: string) => {
  const parts = file.slice(`${WEB_SRC}pages/`.length).split("/")
  return parts.length > 1 ? parts[0]! : ""
}

const webLayering = (files: SourceTree, facts: ReadonlyMap<string, FileFacts>): Array<Violation> => {
  const violations: Array<Violation> = []
  const rank = (layer: WebLayer) => (layer === "sw" ? -1 : WEB_LAYERS.indexOf(layer))
  for (const [file, { imports }] of [...facts].sort(([a], [b]) => a.localeCompare(b))) {
    if (!file.startsWith(WEB_SRC) || isTestFile(file)) continue
    const from = webLayerOf(file)
    // shims/ are build aliases (vite.config.ts), imported by no file.
    if (from === undefined) {
      if (!file.startsWith(`${WEB_SRC}shims/`))
        violations.push({ check: "web", message: `${file} is in no web layer (${WEB_LAYERS.join(", ")}, sw)` })
      continue
    }
    if (from === "state" && file.endsWith(".tsx"))
      violations.push({ check: "web", message: `${file}: state/ holds no JSX (a component belongs in components/)` })
    for (const specifier of imports) {
      const target = resolveRelative(files, file, specifier)
      if (target === undefined || !target.startsWith(WEB_SRC)) continue
      const to = webLayerOf(target)
      if (to === undefined) continue
      const upward =
        (from === "sw") !== (to === "sw")
          ? `${file} imports ${target}: the service worker shares no module with the app`
          : rank(to) > rank(from)
            ? `${file} imports ${target}: ${from} is below ${to} (${WEB_LAYERS.join(" ← ")})`
            : from === "pages" && to === "pages" && pageAreaOf(file) !== pageAreaOf(target)
              ? `${file} imports ${target}: a page imports only its own area; move what areas share to components/`
              : undefined
      if (upward !== undefined) violations.push({ check: "web", message: upward })
    }
  }
  return violations
}

const sqlOutsideRepositories = (facts: ReadonlyMap<string, FileFacts>): Array<Violation> =>
  [...facts]
    .sort(([a], [b]) => a.localeCompare(b))
    .filter(
      ([file]) =>
        file.startsWith(SERVER_SRC) && !file.startsWith(DB_DIR) && !file.endsWith("Repository.ts") && !isTestFile(file),
    )
    .flatMap(([file, { sqlUses }]) =>
      sqlUses.map(({ line, form }) => ({
        check: "sql" as const,
        message: `SQL outside a repository: ${file}:${line} uses ${form} (move it into a *Repository.ts)`,
      })),
    )

// `DO UPDATE SET` (upsert) and `FOR [NO KEY] UPDATE` (row lock) write nothing by themselves.
const WRITES = [
  /\bINSERT\s+INTO\s+([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?|"[^"]+")/gi,
  /(?<!\bDO\s+)(?<!\bFOR\s+(?:NO\s+KEY\s+)?)\bUPDATE\s+(?:ONLY\s+)?([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?|"[^"]+")/gi,
  /\bDELETE\s+FROM\s+(?:ONLY\s+)?([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?|"[^"]+")/gi,
]

/**
 * Tables a piece of SQL writes, lower-cased, without quotes or the `public.` schema. `indexed_tracks`,
 * `indexed_albums` and `indexed_artists` are the base tables behind the `tracks`, `albums` and `artists`
 * views (migration 0006): writing either name is writing the same table.
 */
export const tablesWritten = (sqlText: string): ReadonlyArray<string> => {
  const tables = new Set<string>()
  for (const pattern of WRITES) {
    for (const match of sqlText.matchAll(pattern)) {
      const table = match[1]!
        .replaceAll('"', "")
        .toLowerCase()
        .replace(/^public\./, "")
        .replace(/^indexed_(tracks|albums|artists)$/, "$1")
      if (table !== "set") tables.add(table)
    }
  }
  return [...tables]
}

const tablesWrittenTwice = (facts: ReadonlyMap<string, FileFacts>): Array<Violation> => {
  const writers = new Map<string, Set<string>>()
  for (const [file, { sqlTexts }] of facts) {
    if (file.startsWith(MIGRATIONS_DIR) || isTestFile(file)) continue
    for (const table of sqlTexts.flatMap(tablesWritten)) {
      const files = writers.get(table) ?? new Set<string>()
      files.add(file)
      writers.set(table, files)
    }
  }
  return [...writers]
    .filter(([, files]) => files.size > 1)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, files]) => ({
      check: "table",
      message: `table ${table} is written from ${files.size} files: ${[...files].sort().join(", ")}`,
    }))
}

/** Every violation in the tree: cycles first, then domains and web layers, SQL placement, tables with several writers. */
export const checkArchitecture = (files: SourceTree): ReadonlyArray<Violation> => {
  const facts = new Map([...files].map(([file, text]) => [file, readFacts(file, text)] as const))
  return [
    ...importCycles(files, facts),
    ...domainCycles(files, facts),
    ...foreignRepositoryImports(files, facts),
    ...webLayering(files, facts),
    ...sqlOutsideRepositories(facts),
    ...tablesWrittenTwice(facts),
  ]
}

/** Every `.ts`, `.tsx` and `.mjs` file in `packages/<name>/src` under `root`, keyed by repository-relative POSIX path. */
export const readSourceTree = (root: string): SourceTree => {
  const files = new Map<string, string>()
  const packages = path.join(root, "packages")
  for (const name of fs.readdirSync(packages).sort()) {
    const src = path.join(packages, name, "src")
    if (!fs.existsSync(src)) continue
    for (const entry of fs.readdirSync(src, { recursive: true, encoding: "utf8" }).sort()) {
      if (!/\.(?:tsx?|mjs)$/.test(entry) || entry.endsWith(".d.ts")) continue
      const absolute = path.join(src, entry)
      if (!fs.statSync(absolute).isFile()) continue
      files.set(path.relative(root, absolute).split(path.sep).join("/"), fs.readFileSync(absolute, "utf8"))
    }
  }
  return files
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href
if (isMain) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
  const tree = readSourceTree(root)
  const violations = checkArchitecture(tree)
  for (const { message } of violations) console.error(message)
  if (violations.length > 0) {
    console.error(`architecture: ${violations.length} violation(s) in ${tree.size} files`)
    process.exitCode = 1
  } else {
    console.log(
      `architecture: ${tree.size} files, no import cycle between files or domains, web layers import downward only, repositories used only by their own domain, SQL only in repositories, one writer per table`,
    )
  }
}
