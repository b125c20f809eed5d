/**
 * How credited artists read (contract "Library model": Artist credits). Pure, so it is unit-tested on its own
 * (test/credits.test.ts); `ArtistLinks.tsx` renders the pieces, each credited name its own link.
 */

/** A credited artist: a track's (with its role) or an album artist. */
export interface Credit {
  readonly id: string
  readonly name: string
  readonly role?: "main" | "featured"
}

/** A piece of the display text: a credited name (a link) or the text between names. */
export interface CreditPiece {
  readonly text: string
  readonly credit?: Credit
}

const WORD = /[\p{L}\p{N}]/u

/** Where `name` occurs in `text` at or after `from` as a whole name (not inside a longer word), or -1. */
const findName = (text: string, name: string, from: number): number => {
  for (let at = text.indexOf(name, from); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = at === 0 ? "" : text.charAt(at - 1)
    const after = text.charAt(at + name.length)
    if (!WORD.test(before) && !WORD.test(after)) return at
  }
  return -1
}

/** The names written out: main artists joined by ", ", then the featured ones after " feat. ". */
const joined = (credits: ReadonlyArray<Credit>): Array<CreditPiece> => {
  const main = credits.filter((credit) => credit.role !== "featured")
  const featured = credits.filter((credit) => credit.role === "featured")
  const pieces: Array<CreditPiece> = []
  const list = (group: ReadonlyArray<Credit>) =>
    group.forEach((credit, index) => {
      if (index > 0) pieces.push({ text: ", " })
      pieces.push({ text: credit.name, credit })
    })
  list(main)
  if (featured.length > 0) {
    if (main.length > 0) pieces.push({ text: " feat. " })
    list(featured)
  }
  return pieces
}

/**
 * The pieces of a track's or album's artist line. The text as tagged (`Alice feat. Bob`, `Alice / Carol`) is
 * kept, with each credited name in it, in credit order, made a link; when the text does not hold every name in
 * order (the names came from a multi-valued ARTISTS tag, say), the names are written out instead: mains joined
 * by ", ", featured ones after " feat. ". No credits: the text alone.
 */
export const creditPieces = (text: string, credits: ReadonlyArray<Credit>): ReadonlyArray<CreditPiece> => {
  if (credits.length === 0) return text === "" ? [] : [{ text }]
  const pieces: Array<CreditPiece> = []
  let from = 0
  for (const credit of credits) {
    const at = credit.name === "" ? -1 : findName(text, credit.name, from)
    if (at < 0) return joined(credits)
    if (at > from) pieces.push({ text: text.slice(from, at) })
    pieces.push({ text: credit.name, credit })
    from = at + credit.name.length
  }
  if (from < text.length) pieces.push({ text: text.slice(from) })
  return pieces
}
