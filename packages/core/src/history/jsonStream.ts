/**
 * Cuts a stream of JSON text into its records without holding the whole file: a top-level array's elements
 * (`[{…},{…}]`, a ListenBrainz or Spotify export) or a run of top-level objects (JSON lines). Each record comes
 * out as its own text, for `JSON.parse`; only the record being read is buffered.
 */

/** The text is not JSON records (or is cut short). */
export class MalformedJson extends Error {
  override readonly name = "MalformedJson"
}

const QUOTE = 34
const BACKSLASH = 92
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93
const COMMA = 44

const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9 || code === 0xfeff

export class JsonRecordSplitter {
  private mode: "start" | "array" | "lines" | "done" = "start"
  private buffer = ""
  /** Where the current record starts in `buffer`, or -1 between records. */
  private start = -1
  private scanned = 0
  private depth = 0
  private inString = false
  private escaped = false

  /** Feeds the next piece of text; answers the records it completed, in order. */
  feed(chunk: string): Array<string> {
    const records: Array<string> = []
    this.buffer = this.start === -1 ? chunk : this.buffer + chunk
    const text = this.buffer
    let i = this.start === -1 ? 0 : this.scanned
    // The depth at which a record begins: inside the array, or at the top for JSON lines.
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (code === BACKSLASH) this.escaped = true
        else if (code === QUOTE) this.inString = false
        continue
      }
      const base = this.mode === "array" ? 1 : 0
      if (this.start === -1) {
        // Between records: only white space, separators and the array's ends may appear here.
        if (isSpace(code)) continue
        if (this.mode === "done") throw new MalformedJson("text after the end of the array")
        if (this.mode === "start") {
          if (code === OPEN_BRACKET) {
            this.mode = "array"
            this.depth = 1
            continue
          }
          if (code !== OPEN_BRACE) throw new MalformedJson("expected an array or an object")
          this.mode = "lines"
        }
        if (this.mode === "array" && code === COMMA) continue
        if (this.mode === "array" && code === CLOSE_BRACKET) {
          this.mode = "done"
          this.depth = 0
          continue
        }
        if (code !== OPEN_BRACE) throw new MalformedJson(`expected an object at character ${i}`)
        this.start = i
        this.depth = base + 1
        continue
      }
      if (code === QUOTE) this.inString = true
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) this.depth++
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        this.depth--
        if (this.depth === base) {
          records.push(text.slice(this.start, i + 1))
          this.start = -1
        }
      }
    }
    if (this.start === -1) {
      this.buffer = ""
      this.scanned = 0
    } else {
      this.buffer = text.slice(this.start)
      this.scanned = this.buffer.length
      this.start = 0
    }
    return records
  }

  /** The text has ended: fails when a record or the array is left open. */
  end(): void {
    if (this.start !== -1 || this.inString) throw new MalformedJson("the text ends inside a record")
    if (this.mode === "array") throw new MalformedJson("the array is not closed")
    if (this.mode === "start") throw new MalformedJson("no records")
  }
}
