import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { configDir, writeFileAtomic } from "./state.js"

/** A stored login: the bearer token of a session on one server, and whose it is. */
export interface StoredLogin {
  readonly username: string
  readonly token: string
  readonly saved_at: string
}

interface CredentialsFile {
  readonly servers: Record<string, StoredLogin>
}

export const credentialsFile = () => path.join(configDir(), "credentials.json")

/** Server URLs are keys: no trailing slash, lower-case scheme and host (as URL parsing gives them). */
export const serverKey = (url: string): string => {
  try {
    return new URL(url).toString().replace(/\/+$/, "")
  } catch {
    return url.replace(/\/+$/, "")
  }
}

const read = (): CredentialsFile => {
  try {
    const value = JSON.parse(fs.readFileSync(credentialsFile(), "utf8")) as Partial<CredentialsFile>
    return { servers: typeof value.servers === "object" && value.servers !== null ? value.servers : {} }
  } catch {
    return { servers: {} }
  }
}

/** Readable only by the user (0600), in a directory only they can enter (0700). */
const write = (file: CredentialsFile) => writeFileAtomic(credentialsFile(), `${JSON.stringify(file, null, 2)}\n`, 0o600)

/** The login stored for the first of these URLs that has one. */
export const storedLogin = (...urls: ReadonlyArray<string>) =>
  Effect.sync(() => {
    const servers = read().servers
    for (const url of urls) {
      const login = servers[serverKey(url)]
      if (login !== undefined && typeof login.token === "string") return Option.some(login)
    }
    return Option.none<StoredLogin>()
  })

export const storeLogin = (url: string, login: { readonly username: string; readonly token: string }) =>
  Effect.sync(() => {
    const file = read()
    write({
      servers: { ...file.servers, [serverKey(url)]: { ...login, saved_at: new Date().toISOString() } },
    })
    return credentialsFile()
  })

/** Forgets the logins of these URLs; the ones removed. */
export const forgetLogin = (...urls: ReadonlyArray<string>) =>
  Effect.sync(() => {
    const file = read()
    const removed: Array<StoredLogin> = []
    const servers = { ...file.servers }
    for (const url of urls) {
      const login = servers[serverKey(url)]
      if (login !== undefined) removed.push(login)
      delete servers[serverKey(url)]
    }
    if (removed.length > 0) write({ servers })
    return removed
  })
