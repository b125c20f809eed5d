/** Rows by their id. */
export const byId = <A extends { readonly id: string }>(rows: ReadonlyArray<A>): ReadonlyMap<string, A> =>
  new Map(rows.map((row) => [row.id as string, row]))

/** The rows of these ids, in the ids' order: an id with no row (no longer in the library) is left out. */
export const inOrder = <A>(ids: ReadonlyArray<string>, rows: ReadonlyMap<string, A>): ReadonlyArray<A> =>
  ids.flatMap((id) => {
    const row = rows.get(id)
    return row === undefined ? [] : [row]
  })
