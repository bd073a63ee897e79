/**
 * Provider-shaped ids derived from a seed. Real providers hand out random ids;
 * the loopback derives them from the request's position and the block's index,
 * so a run is reproducible (snapshot tests see the same ids every time) while
 * each id still looks like the one the real provider would send.
 */
import { createHash } from "node:crypto"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const digest = (seed: string, length: number): Buffer => {
  const chunks: Array<Buffer> = []
  for (let i = 0, size = 0; size < length; i++) {
    const chunk = createHash("sha256").update(`${seed}#${i}`).digest()
    chunks.push(chunk)
    size += chunk.length
  }
  return Buffer.concat(chunks).subarray(0, length)
}

/** `length` lowercase hex characters. */
export const hex = (seed: string, length: number): string => digest(seed, Math.ceil(length / 2)).toString("hex").slice(0, length)

/** `length` characters of [0-9A-Za-z]. */
export const base62 = (seed: string, length: number): string => Array.from(digest(seed, length), (byte) => BASE62[byte % 62]).join("")

/** `length` characters of base64url. */
export const base64url = (seed: string, length: number): string => digest(seed, length).toString("base64url").slice(0, length)
