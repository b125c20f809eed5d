import pg from "pg"

/** One statement on a fresh connection to `url`, answering its rows (for tests outside a server's layers). */
export const pgQuery = async <R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: ReadonlyArray<unknown> = [],
): Promise<Array<R>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text, values as Array<unknown>)).rows
  } finally {
    await client.end()
  }
}
