import { missingParameter, SubsonicErrorCode, SubsonicFailure } from "@tonearm/core"
import { Effect } from "effect"

/**
 * A request's parameters: the query string and, for a form POST, the form body (OpenSubsonic formPost). An empty
 * value counts as absent (contract "Subsonic compatibility: additions"): web clients send `p=` beside `t` and `s`,
 * or `apiKey=` beside `u` and `p`. `given` and `allGiven` keep empty values for the few parameters where an empty
 * value says something (search's `query=` lists everything; updatePlaylist's `comment=` clears the comment).
 */
export class SubsonicParams {
  private readonly entries: ReadonlyArray<readonly [string, string]>

  constructor(private readonly givenEntries: ReadonlyArray<readonly [string, string]>) {
    this.entries = givenEntries.filter(([, value]) => value !== "")
  }

  get(name: string): string | undefined {
    return this.entries.find(([key]) => key === name)?.[1]
  }

  all(name: string): Array<string> {
    return this.entries.filter(([key]) => key === name).map(([, value]) => value)
  }

  /** The first value sent, even an empty one. */
  given(name: string): string | undefined {
    return this.givenEntries.find(([key]) => key === name)?.[1]
  }

  /** Every value sent, empty ones included, in order (for parameters paired by position). */
  allGiven(name: string): Array<string> {
    return this.givenEntries.filter(([key]) => key === name).map(([, value]) => value)
  }

  /** Error 10 when absent or empty. */
  required(name: string): Effect.Effect<string, SubsonicFailure> {
    const value = this.get(name)
    return value === undefined ? Effect.fail(missingParameter(name)) : Effect.succeed(value)
  }

  /** An integer parameter: its default when absent, error 0 naming it when it is not an integer. */
  int(name: string, fallback: number): Effect.Effect<number, SubsonicFailure>
  int(name: string): Effect.Effect<number | undefined, SubsonicFailure>
  int(name: string, fallback?: number): Effect.Effect<number | undefined, SubsonicFailure> {
    const value = this.get(name)
    if (value === undefined) return Effect.succeed(fallback)
    const n = Number(value)
    return Number.isSafeInteger(n)
      ? Effect.succeed(n)
      : Effect.fail(
          new SubsonicFailure({ code: SubsonicErrorCode.generic, message: `Parameter ${name} must be an integer` }),
        )
  }

  requiredInt(name: string): Effect.Effect<number, SubsonicFailure> {
    return Effect.flatMap(this.required(name), () => this.int(name, 0))
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.get(name)?.toLowerCase()
    return value === undefined ? fallback : value === "true" || value === "1"
  }
}
