import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { navidromeFixtureOf, writeNavidromeDb } from "../../server/fixtures/navidromeDb.js"
import { makeZip, spotifyEntry } from "../../server/test/history/importSupport.js"
import { fixtureLibrary } from "../../server/test/support/library.js"
import { detectSource } from "../src/actions/import.js"
import { makeProgram } from "../src/program.js"
import { bin, cleanEnv, freePort, freshDataDir, node, root, runCli } from "./support/served.js"

/**
 * `tonearm import <file>` (issue 26): the source told from the file, then through the running server (a streamed
 * upload with progress, followed to the end, the unmatched entries listed) or, with no server, in the data directory.
 */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cli-import-"))
const write = (name: string, content: string | Uint8Array) => {
  const file = path.join(scratch, name)
  fs.writeFileSync(file, content)
  return file
}

const lbListen = (artist: string, title: string, seconds: number, album: string | null = null) => ({
  listened_at: seconds,
  track_metadata: { artist_name: artist, track_name: title, release_name: album },
})

describe("which export a file is", () => {
  it("tonearm import --help names the file and its flags", () => {
    const command = makeProgram("0.0.0").commands.find((candidate) => candidate.name() === "import")!
    expect(command.helpInformation()).toMatch(
      /import \[options\] <file>[\s\S]*--user[\s\S]*--source[\s\S]*--all-unmatched[\s\S]*--data-dir[\s\S]*--server/,
    )
  })

  it("a ListenBrainz array or JSON lines, a Spotify history, their zips, a navidrome.db; else it says why", async () => {
    const listens = [lbListen("A", "B", 1_600_000_000), lbListen("C", "D", 1_600_000_100)]
    const spotify = [spotifyEntry("A", "B", Date.UTC(2021, 0, 1), 60_000)]
    const cases: Array<[string, string | Uint8Array, string]> = [
      ["lb.json", JSON.stringify(listens, null, 2), "listenbrainz_export"],
      ["lb.jsonl", `${listens.map((l) => JSON.stringify(l)).join("\n")}\n`, "listenbrainz_export"],
      ["Streaming_History_Audio_2021.json", JSON.stringify(spotify), "spotify_extended"],
      [
        "my_spotify_data.zip",
        makeZip({
          "Spotify Extended Streaming History/ReadMeFirst.pdf": "pdf",
          "Spotify Extended Streaming History/Streaming_History_Audio_2021.json": JSON.stringify(spotify),
        }),
        "spotify_extended",
      ],
      [
        "listenbrainz.zip",
        makeZip({ "user.json": "{}", "listens/2020/9.jsonl": JSON.stringify(listens[0]) }),
        "listenbrainz_export",
      ],
      ["navidrome.db", Buffer.concat([Buffer.from("SQLite format 3\u0000"), Buffer.alloc(84)]), "navidrome_db"],
    ]
    for (const [name, content, source] of cases) expect(await detectSource(write(name, content))).toEqual({ source })
    expect(await detectSource(write("empty.json", ""))).toEqual({ problem: "the file is empty" })
    expect(await detectSource(write("notes.txt", "hello"))).toMatchObject({
      problem: expect.stringContaining("not JSON"),
    })
    expect(await detectSource(write("other.json", '[{"a": 1}]'))).toMatchObject({
      problem: expect.stringContaining("neither ListenBrainz listens nor Spotify streams"),
    })
    expect(await detectSource(write("photos.zip", makeZip({ "a.jpg": "x" })))).toEqual({
      problem: "the zip holds no listening history files",
    })
  })
})

describe("tonearm import", () => {
  let server: ChildProcess
  let base = ""
  let dataDir = ""
  let adminToken = ""
  let listenerToken = ""
  let manifest: Awaited<ReturnType<typeof fixtureLibrary>>["manifest"]
  const tracks: Array<{ artist: string; title: string; album: string }> = []

  const api = async (method: string, route: string, body?: unknown, token = adminToken) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return response
  }
  const tonearm = (args: ReadonlyArray<string>, token?: string) =>
    runCli([...args, ...(token === undefined ? [] : ["--server", base, "--token", token])], { env: cleanEnv() })

  /** Six listens: five of the library's tracks, `hours` back, 10 minutes apart, and one song it lacks. */
  const exportOf = (hoursAgo: number) => {
    const from = Math.floor(Date.now() / 1000) - hoursAgo * 3600
    return `${[
      ...tracks.slice(0, 5).map((track, i) => lbListen(track.artist, track.title, from + i * 600, track.album)),
      lbListen("Nobody Here", "A Song Not In This Library", from + 3000),
    ]
      .map((listen) => JSON.stringify(listen))
      .join("\n")}\n`
  }

  beforeAll(async () => {
    const library = await fixtureLibrary()
    manifest = library.manifest
    dataDir = freshDataDir()
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    server = spawn(
      node,
      [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir, "--library", library.root],
      { cwd: root, env: cleanEnv(), stdio: "ignore" },
    )
    const deadline = Date.now() + 90_000
    for (;;) {
      try {
        if ((await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) break
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error("the server did not start")
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const registered = await fetch(`${base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "ops", password: "operator pass" }),
    })
    adminToken = ((await registered.json()) as { token: string }).token
    await api("POST", "/api/admin/users", { username: "listener", password: "listener pass", is_admin: false })
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "listener", password: "listener pass" }),
    })
    listenerToken = ((await login.json()) as { token: string }).token
    // The first start scans the library; the listens are made from what it indexed.
    for (;;) {
      const scan = (await (await api("GET", "/api/admin/scan")).json()) as { state: string; files_seen: number }
      if (scan.state !== "running" && scan.files_seen > 0) break
      if (Date.now() > deadline + 60_000) throw new Error("the library was not scanned")
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
    const albums = (await (await api("GET", "/api/library/albums?limit=50")).json()) as { items: Array<{ id: string }> }
    for (const album of albums.items) {
      const detail = (await (await api("GET", `/api/albums/${album.id}`)).json()) as {
        tracks: Array<{ artist_name: string; title: string; album_title: string }>
      }
      tracks.push(...detail.tracks.map((t) => ({ artist: t.artist_name, title: t.title, album: t.album_title })))
      if (tracks.length >= 5) break
    }
  }, 240_000)

  afterAll(async () => {
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve))
      server.kill("SIGTERM")
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))])
      if (server.exitCode === null) server.kill("SIGKILL")
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("through the server: uploads with progress lines, follows the import, lists the unmatched entry; again adds nothing", async () => {
    const file = write("listens.jsonl", exportOf(48))
    const first = await tonearm(["import", file], listenerToken)
    expect(first.code, first.stderr).toBe(0)
    // Not a terminal: plain progress lines, no redrawn bar.
    expect(first.stderr).toMatch(/^100% uploading listens\.jsonl: ([\d.]+) KB of \1 KB$/m)
    expect(first.stderr).toMatch(/^importing \(done\): 6 read · 5 matched · 1 unmatched · 0 already there$/m)
    expect(first.stderr).not.toContain("\r")
    expect(first.stdout).toContain(
      "imported ListenBrainz export into listener's history: 6 read, 5 matched (0 already there), 1 unmatched",
    )
    expect(first.stdout).toMatch(
      /^unmatched \(1\):\n {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}Nobody Here — A Song Not In This Library$/m,
    )

    const again = await tonearm(["import", file, "--user", "listener", "--json"], listenerToken)
    expect(again.code, again.stderr).toBe(0)
    const status = JSON.parse(again.stdout) as {
      state: string
      source: string
      matched: number
      duplicates: number
      unmatched_entries: Array<{ artist: string; reason: string }>
    }
    expect(status).toMatchObject({ state: "done", source: "listenbrainz_export", matched: 5, duplicates: 5 })
    expect(status.unmatched_entries).toEqual([expect.objectContaining({ artist: "Nobody Here", reason: "no_match" })])
  }, 120_000)

  it("a Spotify zip is told apart by its files; --source overrides the guess; a wrong --user or source is refused", async () => {
    const end = Date.now() - 72 * 3_600_000
    const zip = write(
      "my_spotify_data.zip",
      makeZip({
        "Spotify Extended Streaming History/Streaming_History_Audio_2024.json": JSON.stringify(
          tracks.slice(0, 3).map((track, i) => spotifyEntry(track.artist, track.title, end + i * 600_000, 200_000)),
        ),
      }),
    )
    const spotify = await tonearm(["import", zip], listenerToken)
    expect(spotify.code, spotify.stderr).toBe(0)
    expect(spotify.stdout).toContain("imported Spotify streaming history into listener's history: 3 read, 3 matched")

    const wrongUser = await tonearm(["import", zip, "--user", "someone"], listenerToken)
    expect(wrongUser.code).toBe(1)
    expect(wrongUser.stderr.trim()).toBe(
      "tonearm: the server imports into the signed-in user's history (listener), not someone: log in as someone (tonearm login --username someone) or pass their --token",
    )
    const badSource = await tonearm(["import", zip, "--source", "lastfm_api"], listenerToken)
    expect(badSource.code).toBe(1)
    expect(badSource.stderr).toContain(
      "--source lastfm_api: give one of listenbrainz_export, spotify_extended, navidrome_db",
    )
    // Told it is a ListenBrainz export, the server finds no listen in it and says so.
    const forced = await tonearm(["import", zip, "--source", "listenbrainz_export"], listenerToken)
    expect(forced.code).toBe(1)
    expect(forced.stderr).toMatch(/^tonearm: (.* refused the import: file: |the import failed: ).*ListenBrainz/m)
    const unknown = await tonearm(["import", write("notes.txt", "hello")], listenerToken)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("cannot tell which export")
  }, 120_000)

  it("a navidrome.db goes to the admin's import (every user at once); a listener is refused", async () => {
    const db = path.join(scratch, "navidrome.db")
    writeNavidromeDb(db, navidromeFixtureOf(manifest, { userNames: ["listener", "ops", "ghost"] }).spec)
    const refused = await tonearm(["import", db], listenerToken)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("a navidrome.db is imported by an admin")
    const imported = await tonearm(["import", db], adminToken)
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(/^imported Navidrome database: \d+ read, [1-9]\d* matched/m)
    expect(imported.stdout).toContain("listener")
  }, 120_000)

  it("on a terminal the upload and the import redraw one bar", async () => {
    const script = ["/usr/bin/script", "/bin/script"].find((candidate) => fs.existsSync(candidate))
    if (script === undefined) return
    const file = write("tty.jsonl", exportOf(96))
    const command = [node, bin, "import", file, "--server", base, "--token", listenerToken]
      .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
      .join(" ")
    const output = execFileSync(script, ["-qec", command, "/dev/null"], { env: cleanEnv(), encoding: "utf8" })
    const redraw = "\r\u001b[2K"
    expect(output).toContain(`${redraw}[${"#".repeat(30)}] 100% uploading tty.jsonl`)
    expect(output).toContain(`${redraw}[${"#".repeat(30)}] importing (done): 6 read · 5 matched`)
  }, 120_000)

  it("with no server running, it imports into the data directory for --user", async () => {
    const exited = new Promise((resolve) => server.once("exit", resolve))
    server.kill("SIGTERM")
    await exited
    const file = write("offline.jsonl", exportOf(120))
    const missing = await runCli(["import", file, "--data-dir", dataDir], { env: cleanEnv() })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("--user NAME: whose history this is (no server is running)")
    const nobody = await runCli(["import", file, "--user", "nobody", "--data-dir", dataDir], { env: cleanEnv() })
    expect(nobody.code).toBe(1)
    expect(nobody.stderr).toContain("no user named nobody")
    const offline = await runCli(["import", file, "--user", "listener", "--data-dir", dataDir], { env: cleanEnv() })
    expect(offline.code, offline.stderr).toBe(0)
    expect(offline.stdout).toContain(
      "imported ListenBrainz export into listener's history: 6 read, 5 matched (0 already there), 1 unmatched",
    )
    // The file given stays; the job's copy in the data directory is gone.
    expect(fs.existsSync(file)).toBe(true)
    expect(fs.readdirSync(path.join(dataDir, "imports"))).toEqual([])
  }, 180_000)
})
