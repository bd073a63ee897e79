/**
 * The session store a command uses, from the settings: `storeLayer` for
 * commands that write, `readStoreLayer` for those that only read. Apart from
 * `Layers` so that a command that only reads the store (`sessions`, `show`,
 * `doctor`, `export`) loads neither the agent nor MCP.
 */
import { accessSync, constants, statSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Memory, SessionStore, StoreLayer } from "@turnlog/store"
import { CommandFailed } from "./CliError.js"
import * as Secrets from "./Secrets.js"
import { Invocation, type Settings } from "./Settings.js"

/**
 * The store of the settings; what it is given to append is redacted (see
 * `Secrets`). `program` names this process in the leases it takes, so another
 * process that finds a session held is told who holds it.
 */
export const storeLayer = (settings: Settings, program?: string): Layer.Layer<SessionStore.SessionStore, CommandFailed> =>
  Layer.effect(
    SessionStore.SessionStore,
    Effect.zipWith(SessionStore.SessionStore, Invocation, (store, invocation) => Secrets.store(Secrets.of(settings, invocation.env).redactor, store)),
  ).pipe(
    Layer.provide(
      StoreLayer.layer({
        kind: settings.store,
        home: settings.home,
        ...(settings.databaseUrl === undefined ? {} : { database: { url: settings.databaseUrl } }),
        ...(program === undefined ? {} : { program }),
      }).pipe(
        Layer.mapError((e) => new CommandFailed({ message: `the ${settings.store} session store cannot be opened: ${e.message}` })),
      ),
    ),
  )

/**
 * The store for commands that only read (`sessions`, `show`, `doctor`): where
 * nothing has been stored yet — no `<home>/sessions/`, or no `sessions.db` —
 * an empty store, so a mistyped home is not created just by looking at it.
 * A database is there to be read (PostgreSQL).
 */
export const readStoreLayer = (settings: Settings): Layer.Layer<SessionStore.SessionStore, CommandFailed> => {
  if (settings.store === "postgres") return storeLayer(settings)
  // A home that is a file, or one the user cannot enter, is not an empty one.
  const home = look(settings.home, "directory", `the home ${settings.home}`)
  if (home !== "present") return home === "missing" ? Memory.layerMemory : Layer.fail(home)
  const stored = settings.store === "sqlite"
    ? look(join(settings.home, "sessions.db"), "file", join(settings.home, "sessions.db"))
    : look(join(settings.home, "sessions"), "directory", join(settings.home, "sessions"))
  if (stored !== "present") return stored === "missing" ? Memory.layerMemory : Layer.fail(stored)
  return storeLayer(settings)
}

/** Whether `path` is there as what it should be, or why it cannot be used (a sentence naming it). */
const look = (path: string, as: "directory" | "file", name: string): "present" | "missing" | CommandFailed => {
  try {
    const stat = statSync(path)
    if (as === "directory" && !stat.isDirectory()) return new CommandFailed({ message: `${name} is not a directory` })
    if (as === "directory") accessSync(path, constants.R_OK | constants.X_OK)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT") return "missing"
    if (code === "EACCES" || code === "EPERM") return new CommandFailed({ message: `${name}: permission denied` })
    if (code === "ENOTDIR") return new CommandFailed({ message: `${name}: a directory above it is a file` })
    return new CommandFailed({ message: `${name} cannot be read: ${e instanceof Error ? e.message : String(e)}` })
  }
  return "present"
}
