/**
 * The library a bench runs on: the project's own synthetic generator (`fixtures/synthetic.ts`: N small tagged
 * files in seven formats, written in TypeScript around a few ffmpeg-made templates) by default, or an external
 * generator script when one is named (`--gen-library PATH` or TONEARM_GEN_LIBRARY: a Python script taking
 * `--out DIR --tracks N --seed S --force` that writes `.manifest.jsonl` and `.manifest-summary.json`, run with
 * Debian's python3 so python3-mutagen is found). Generated once per generator, size and seed into the temp folder
 * and reused by later runs.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateSyntheticLibrary } from "../fixtures/synthetic.js"

export interface BenchLibraryOptions {
  readonly tracks: number
  readonly seed: number
  /** The external generator script; undefined: the synthetic generator. */
  readonly genLibrary: string | undefined
  /** Synthetic only: artist credits and their ground truth (bench:catalog needs them). */
  readonly credits?: boolean
  readonly log: (line: string) => void
  readonly fail: (message: string) => never
}

/** `--gen-library PATH` when given, else TONEARM_GEN_LIBRARY when set, else undefined (the synthetic generator). */
export const genLibraryOption = (flag: string | undefined): string | undefined => {
  const named = flag ?? process.env.TONEARM_GEN_LIBRARY
  return named === undefined || named === "" ? undefined : path.resolve(named)
}

/** A short name of the library's kind, for cache folders and output. */
export const benchLibraryKind = (options: Pick<BenchLibraryOptions, "genLibrary" | "credits">): string =>
  options.genLibrary !== undefined ? "genlib" : options.credits === true ? "synthetic-credits" : "synthetic"

/** The generated library's folder (made on first use, reused after: its `.complete` marks a finished run). */
export const benchLibrary = async (options: BenchLibraryOptions): Promise<string> => {
  const { tracks, seed, genLibrary } = options
  const dir = path.join(os.tmpdir(), `tonearm-bench-${benchLibraryKind(options)}-${tracks}-${seed}`)
  const done = path.join(dir, ".complete")
  if (fs.existsSync(done)) {
    options.log(`library: reusing ${dir}`)
    return dir
  }
  const started = performance.now()
  fs.rmSync(dir, { recursive: true, force: true })
  if (genLibrary === undefined) {
    await generateSyntheticLibrary({ out: dir, tracks, seed, credits: options.credits === true })
  } else {
    if (!fs.existsSync(genLibrary)) options.fail(`the library generator ${genLibrary} is missing`)
    // Debian's python3 sees python3-mutagen; a pyenv python3 on PATH would not.
    const python = fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3"
    const run = spawnSync(
      python,
      [genLibrary, "--out", dir, "--tracks", String(tracks), "--seed", String(seed), "--force"],
      { stdio: ["ignore", "ignore", "inherit"] },
    )
    if (run.status !== 0) {
      options.fail(`${genLibrary} failed (gen-library needs Debian's python3-mutagen: apt-get install python3-mutagen)`)
    }
  }
  fs.writeFileSync(done, `${tracks}\n`)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  options.log(`library: generated ${tracks} tracks (${benchLibraryKind(options)}) in ${seconds} s into ${dir}`)
  return dir
}
