import { Effect } from "effect"
import pg from "pg"

/** One statement on the admin connection (CREATE / DROP DATABASE). */
export const adminQuery = (adminUrl: string, statement: string) =>
  Effect.tryPromise(async () => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  })

export const databaseUrl = (adminUrl: string, database: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
}
