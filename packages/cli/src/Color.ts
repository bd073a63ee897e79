/**
 * Whether colour may be used: not when `NO_COLOR` is set to anything but the
 * empty string (no-color.org), which `--no-color` sets for the whole process.
 */
export const allowed = (env: NodeJS.ProcessEnv = process.env): boolean => (env["NO_COLOR"] ?? "") === ""
