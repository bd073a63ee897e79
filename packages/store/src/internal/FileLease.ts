/**
 * One writer per session across processes, with a lock file beside the log:
 * `<id>.lock` holds the holder's host, pid, a random token and, when it was
 * given one, the program holding it (a lock file without one still reads). It is published with
 * a hard link (which fails if the file exists), so two processes cannot both
 * take a free lease. A lease whose holder process no longer exists (or is a
 * zombie) is taken over by the one process that claims it, with a rename
 * over it (see `takeOver`), so several takers at once leave one holder.
 */
import { createHash, randomUUID } from "node:crypto"
import { errorCode, type FileIo, writeAll } from "./FileIo.js"
import type { Holder } from "../StoreError.js"
import { drop, hold, holderOf, isLive, type Lease, newToken, thisHost } from "./Liveness.js"

export type Acquired = { readonly _tag: "Acquired"; readonly release: () => void } | {
  readonly _tag: "Locked"
  readonly holder: Holder
}

const readHolder = (io: FileIo, file: string): Lease | undefined => {
  let text: string
  try {
    text = io.readFileSync(file, "utf8")
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined
    throw error
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    // An unreadable lock file has no live holder to protect.
    return { host: "", pid: 0, token: "" }
  }
  if (typeof value !== "object" || value === null) return { host: "", pid: 0, token: "" }
  const { host, pid, program, token } = value as Record<string, unknown>
  return typeof pid === "number" && typeof token === "string"
    ? { host: typeof host === "string" ? host : "", pid, token, ...(typeof program === "string" ? { program } : {}) }
    : { host: "", pid: 0, token: "" }
}

/** The live process holding the lease in `file`, if any (never this process's own lease). */
export const liveHolder = (io: FileIo, file: string): Holder | undefined => {
  const holder = readHolder(io, file)
  return holder !== undefined && isLive(holder) ? holderOf(holder) : undefined
}

const sameHolder = (a: Lease | undefined, b: Lease) => a !== undefined && a.host === b.host && a.pid === b.pid && a.token === b.token

const removeQuietly = (io: FileIo, path: string): void => {
  try {
    io.unlinkSync(path)
  } catch {
    // Already gone or never made: nothing to clean.
  }
}

/** Writes `lease` to a fresh temporary file beside `file`, removed again if writing it fails. */
const writeTemp = (io: FileIo, file: string, lease: Lease): string => {
  const temp = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`
  const fd = io.openSync(temp, "wx")
  try {
    try {
      writeAll(io, fd, Buffer.from(JSON.stringify(lease)))
    } finally {
      io.closeSync(fd)
    }
  } catch (error) {
    // A full disk must not leave an empty temporary per attempt.
    removeQuietly(io, temp)
    throw error
  }
  return temp
}

/** A pause while another process finishes taking a lease over. */
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** The claim on taking over one particular lease: a name only that lease gives. */
const claimOf = (file: string, lease: Lease): string =>
  `${file}.takeover-${createHash("sha256").update(`${lease.host}\0${lease.pid}\0${lease.token}`).digest("hex").slice(0, 16)}`

/**
 * Replaces the dead holder's lease in `file` with `mine`; false if another
 * process is doing it (or did). Only the process that creates the claim on
 * this very lease (a link, which fails if the claim exists) replaces it, and
 * it replaces it with a rename: `file` never goes missing, so nobody links a
 * fresh lease in meanwhile and no second taker moves ours aside. A claim
 * left by a taker that died is a dead lease itself, taken over the same way.
 */
const takeOver = (io: FileIo, file: string, dead: Lease, mine: Lease, depth = 0): boolean => {
  const claim = claimOf(file, dead)
  const temp = writeTemp(io, file, mine)
  try {
    try {
      io.linkSync(temp, claim)
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error
      const claimant = readHolder(io, claim)
      if (claimant === undefined || isLive(claimant) || depth >= 2) return false
      if (!takeOver(io, claim, claimant, mine, depth + 1)) return false
    }
    try {
      if (!sameHolder(readHolder(io, file), dead)) return false
      io.renameSync(temp, file)
      return true
    } finally {
      removeQuietly(io, claim)
    }
  } finally {
    removeQuietly(io, temp)
  }
}

/** Takes the lease in `file`, naming `program` as its holder's when given. */
export const acquire = (io: FileIo, file: string, program?: string): Acquired => {
  const token = newToken()
  const mine: Lease = { host: thisHost, pid: process.pid, token, ...(program !== undefined ? { program } : {}) }
  // Held from the start, so another store of this process judging our claim sees it live.
  hold(token)
  let acquired = false
  try {
    const temp = writeTemp(io, file, mine)
    try {
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          io.linkSync(temp, file)
          acquired = true
        } catch (error) {
          if (errorCode(error) !== "EEXIST") throw error
        }
        if (acquired) return { _tag: "Acquired", release: () => release(io, file, token) }
        const holder = readHolder(io, file)
        if (holder === undefined) continue
        if (isLive(holder)) return { _tag: "Locked", holder: holderOf(holder) }
        acquired = takeOver(io, file, holder, mine)
        if (acquired) return { _tag: "Acquired", release: () => release(io, file, token) }
        // Another process is taking it over: its lease shows up in a moment.
        pause(1)
      }
      const holder = readHolder(io, file)
      return { _tag: "Locked", holder: holder === undefined ? { host: thisHost, pid: 0 } : holderOf(holder) }
    } finally {
      removeQuietly(io, temp)
    }
  } finally {
    if (!acquired) drop(token)
  }
}

const release = (io: FileIo, file: string, token: string): void => {
  drop(token)
  try {
    const holder = readHolder(io, file)
    if (holder !== undefined && holder.token === token) io.unlinkSync(file)
  } catch {
    // A lease file we cannot remove is stale once this process is gone.
  }
}
