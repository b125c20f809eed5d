/**
 * The genre rule (spec "Genre rule"): a track's raw genre text is split on `;` and `,`, each fragment is
 * trimmed and empty fragments are dropped. No case folding, no synonyms, and a slash is not a delimiter
 * (`Rock/Pop` is one genre). The index, the album filter, detail chips, the Subsonic genre operations and
 * the taste profile all use this one function, so a genre shown anywhere always matches its own filter.
 */
const GENRE_DELIMITERS = /[;,]/

/**
 * The distinct genres of one raw genre text, in first-seen order. A genre repeated inside one text
 * (`Rock; Rock`) counts once, so a track is never counted twice under the same genre.
 */
export const splitGenres = (raw: string | null): ReadonlyArray<string> => {
  if (raw === null) return []
  const genres: Array<string> = []
  for (const fragment of raw.split(GENRE_DELIMITERS)) {
    const genre = fragment.trim()
    if (genre.length > 0 && !genres.includes(genre)) genres.push(genre)
  }
  return genres
}

/** Whether a track's raw genre text belongs to `genre` (the album filter's predicate; exact, case-sensitive). */
export const hasGenre = (raw: string | null, genre: string): boolean => splitGenres(raw).includes(genre.trim())
