/**
 * Requests started at boot, before the shell knows who is signed in, so the first page's data is on its way while
 * the session is checked and the page's chunk loads (Home on loopback: one round trip less on the critical path).
 * A page takes its prefetched promise once; later visits fetch as usual.
 */
const started = new Map<string, Promise<unknown>>()

export const prefetch = <A>(key: string, load: () => Promise<A>) => {
  const promise = load()
  started.set(key, promise)
  // A failed prefetch (signed out: 401) is forgotten, so the page fetches afresh once someone signs in.
  promise.catch(() => {
    if (started.get(key) === promise) started.delete(key)
  })
}

export const takePrefetched = <A>(key: string): Promise<A> | undefined => {
  const promise = started.get(key) as Promise<A> | undefined
  started.delete(key)
  return promise
}
