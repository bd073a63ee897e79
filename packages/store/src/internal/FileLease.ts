/**
 * One writer per session across processes, with a lock file beside the log:
 * `<id>.lock` holds the holder's host, pid and a random token. It is published with
 * a hard link (which fails if the file exists), so two processes cannot both
 * take a free lease. A lease whose holder process no longer exists is taken
 * over: the stale file is moved aside, checked to still be the dead holder's
 * (a racing taker may have replaced it; then it is put back), and removed.
 */
import { randomUUID } from "node:crypto"
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
  const { host, pid, token } = value as Record<string, unknown>
  return typeof pid === "number" && typeof token === "string"
    ? { host: typeof host === "string" ? host : "", pid, token }
    : { host: "", pid: 0, token: "" }
}

/** The live process holding the lease in `file`, if any (never this process's own lease). */
export const liveHolder = (io: FileIo, file: string): Holder | undefined => {
  const holder = readHolder(io, file)
  return holder !== undefined && isLive(holder) ? holderOf(holder) : undefined
}

const sameHolder = (a: Lease | undefined, b: Lease) =>
  a !== undefined && a.host === b.host && a.pid === b.pid && a.token === b.token

export const acquire = (io: FileIo, file: string): Acquired => {
  const token = newToken()
  const temp = `${file}.${process.pid}-${token.slice(0, 8)}.tmp`
  const fd = io.openSync(temp, "wx")
  try {
    writeAll(io, fd, Buffer.from(JSON.stringify({ host: thisHost, pid: process.pid, token } satisfies Lease)))
  } finally {
    io.closeSync(fd)
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        io.linkSync(temp, file)
        hold(token)
        return { _tag: "Acquired", release: () => release(io, file, token) }
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error
      }
      const holder = readHolder(io, file)
      if (holder === undefined) continue
      if (isLive(holder)) return { _tag: "Locked", holder: holderOf(holder) }
      takeOver(io, file, holder)
    }
    const holder = readHolder(io, file)
    return { _tag: "Locked", holder: holder === undefined ? { host: thisHost, pid: 0 } : holderOf(holder) }
  } finally {
    try {
      io.unlinkSync(temp)
    } catch {
      // Nothing to clean.
    }
  }
}

const takeOver = (io: FileIo, file: string, dead: Lease): void => {
  const aside = `${file}.stale-${process.pid}-${randomUUID().slice(0, 8)}`
  try {
    io.renameSync(file, aside)
  } catch (error) {
    if (errorCode(error) === "ENOENT") return
    throw error
  }
  if (sameHolder(readHolder(io, aside), dead)) {
    io.unlinkSync(aside)
    return
  }
  // Someone took the lease between our read and our move: give it back.
  try {
    io.linkSync(aside, file)
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error
  }
  io.unlinkSync(aside)
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
