/**
 * Deleting a JSONL session: its log is unlinked first, and the directory
 * synced, so the deletion is durable once it is reported; then its index
 * entry, which `list` ignores without its log anyway. Sidecars kept from torn
 * tails stay: they are what a damaged log lost, not part of the session.
 */
import { dirname } from "node:path"
import { errorCode, type FileIo, syncDirectory } from "./FileIo.js"

/** Unlinks the log `file` and its index entry `entry`: whether the log was there. */
export const removeLog = (io: FileIo, file: string, entry: string): boolean => {
  let existed = true
  try {
    io.unlinkSync(file)
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error
    existed = false
  }
  if (existed) syncDirectory(io, dirname(file))
  try {
    io.unlinkSync(entry)
  } catch {
    // A cache: an entry left behind without its log costs `list` only a look for the log.
  }
  return existed
}
