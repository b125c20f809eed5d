/**
 * Answers kept per key while a version holds (the library's, for search): a hit must carry the version it was
 * computed for, so a scan that changes the library makes every kept answer a miss. At most `capacity` keys, the
 * least recently used dropped first.
 */
export const versionedAnswers = <A>(capacity: number) => {
  const kept = new Map<string, { readonly version: string; readonly answer: A }>()
  return {
    get: (key: string, version: string): A | undefined => {
      const entry = kept.get(key)
      if (entry === undefined) return undefined
      kept.delete(key)
      if (entry.version !== version) return undefined
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      kept.set(key, entry)
      return entry.answer
    },
    set: (key: string, version: string, answer: A) => {
      kept.delete(key)
      kept.set(key, { version, answer })
      if (kept.size > capacity) kept.delete(kept.keys().next().value as string)
    },
    get size() {
      return kept.size
    },
  }
}

export type VersionedAnswers<A> = ReturnType<typeof versionedAnswers<A>>
