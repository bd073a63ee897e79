// docs/benchmarks.md as `npm run bench` writes it: one section per bench file,
// each saying what it was measured on (machine, load, Node, commit, date) and
// holding what the bench printed. Sections of benches not run this time are
// kept as they were.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import * as os from "node:os"

export interface Section {
  readonly name: string
  readonly machine: string
  readonly output: string
  readonly ok: boolean
}

const HEADER = `# Benchmarks

Written by \`npm run bench\` (one section per benchmark; \`npm run bench -- <name>\`
rewrites only the sections it runs). Each figure is printed beside a reference
measured in the same run and process pairing, so read the ratios: absolute
figures move with the machine and its load, which each section states.
`

const START = "<!-- bench "
const END = "<!-- /bench -->"

/** What a run is measured on, in one line. */
export const machine = (root: string): string => {
  const cpus = os.cpus()
  const model = cpus[0]?.model.trim() ?? "unknown CPU"
  const gib = Math.round(os.totalmem() / 2 ** 30)
  const load = os.loadavg()[0]!.toFixed(1)
  let commit = "uncommitted tree"
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    if (dirty.trim() !== "") commit += " with local changes"
  } catch {
    // not a git checkout: said as such
  }
  const date = new Date().toISOString().slice(0, 16).replace("T", " ")
  return `${date} UTC, commit ${commit}; ${cpus.length} × ${model}, ${gib} GiB, load average ${load} at its start; Node ${process.version}, ${os.platform()} ${os.arch()}`
}

// Colour and cursor sequences a bench may print on a terminal.
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g

const render = (section: Section): string =>
  [
    `${START}${section.name} -->`,
    `## ${section.name}`,
    "",
    `Measured ${section.machine}.${section.ok ? "" : " **The bench failed (exit status not 0): its figures are incomplete.**"}`,
    "",
    "```text",
    section.output.replace(ANSI, "").replace(/\s+$/, ""),
    "```",
    END,
  ].join("\n")

/** The sections already in the file, by bench name, verbatim. */
const existing = (text: string): Map<string, string> => {
  const found = new Map<string, string>()
  let at = text.indexOf(START)
  while (at >= 0) {
    const nameEnd = text.indexOf(" -->", at)
    const end = text.indexOf(END, at)
    if (nameEnd < 0 || end < 0) break
    found.set(text.slice(at + START.length, nameEnd), text.slice(at, end + END.length))
    at = text.indexOf(START, end)
  }
  return found
}

/** Rewrites `file` with `sections` replacing theirs; returns how many were replaced and kept. */
export const update = (file: string, sections: ReadonlyArray<Section>): { readonly replaced: number; readonly kept: number } => {
  const all = existsSync(file) ? existing(readFileSync(file, "utf8")) : new Map<string, string>()
  const kept = [...all.keys()].filter((name) => !sections.some((s) => s.name === name)).length
  for (const section of sections) all.set(section.name, render(section))
  const body = [...all.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, text]) => text)
  const tmp = `${file}.tmp`
  writeFileSync(tmp, `${HEADER}\n${body.join("\n\n")}\n`)
  renameSync(tmp, file)
  return { replaced: sections.length, kept }
}
