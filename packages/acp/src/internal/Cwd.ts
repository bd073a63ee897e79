/** The cwd a client names: absolute, and for a new session a directory that exists (its tools run there). */
import { statSync } from "node:fs"
import { isAbsolute } from "node:path"
import * as Errors from "../Errors.js"

export const requireAbsolute = (cwd: string): void => {
  if (!isAbsolute(cwd)) throw Errors.invalidParams(`cwd must be an absolute path, got "${cwd}"`)
}

export const requireDirectory = (cwd: string): void => {
  requireAbsolute(cwd)
  let isDirectory: boolean
  try {
    isDirectory = statSync(cwd).isDirectory()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw Errors.invalidParams(
      code === "ENOENT" ? `cwd ${cwd} does not exist` : `cwd ${cwd} cannot be used (${code ?? String(error)})`,
    )
  }
  if (!isDirectory) throw Errors.invalidParams(`cwd ${cwd} is not a directory`)
}
