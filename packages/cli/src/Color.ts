/**
 * Whether colour may be used: not when `NO_COLOR` is set to anything but the
 * empty string (no-color.org), which `--no-color` sets for the whole process.
 */
export const allowed = (env: NodeJS.ProcessEnv = process.env): boolean => (env["NO_COLOR"] ?? "") === ""

/**
 * `args` without `--no-color` (before any `--`); given, it sets `NO_COLOR`
 * in `env` (the command's environment), so everything that asks `allowed` hears it.
 */
export const takeFlag = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env): Array<string> => {
  const end = args.indexOf("--")
  const head = end < 0 ? args : args.slice(0, end)
  if (!head.includes("--no-color")) return [...args]
  env["NO_COLOR"] = "1"
  return [...head.filter((a) => a !== "--no-color"), ...(end < 0 ? [] : args.slice(end))]
}

const SGR = /\x1b\[[0-9;]*m/g

/** `text` without its colour and style sequences. */
export const strip = (text: string): string => text.replace(SGR, "")
