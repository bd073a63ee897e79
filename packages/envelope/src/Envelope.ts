/**
 * Keeps provider replay metadata aligned with the blocks it describes.
 *
 * An envelope's per-block entries are index-aligned with the blocks a response
 * streamed. When the assembler drops blocks (a `max-tokens` finish drops its
 * tool calls), the entries must be pruned by the very same keep mask, or the
 * stored metadata would describe a block list that no longer exists and every
 * later request built from it would be refused by the provider. Entries that do
 * not number the streamed blocks cannot be aligned at all, so the envelope is
 * discarded whole: losing fidelity is recoverable, misattributed metadata is not.
 */
import { ReplayEnvelope } from "@turnlog/protocol"

export { ReplayEnvelope }

/**
 * The envelope to store for a response that streamed `streamedCount` blocks of
 * which position `i` is kept when `keep[i] === true`:
 *
 * (a) no per-block entries: the envelope itself (the same object), even when
 *     blocks were dropped — it says nothing about individual blocks;
 * (b) entries that do not number exactly `streamedCount`: `undefined`, the
 *     envelope is discarded whole;
 * (c) nothing dropped: the envelope itself (the same object);
 * (d) otherwise `{ response, blocks }` with the entries at the kept positions.
 *
 * A mask entry that is missing or not `true` counts as dropped, so a short mask
 * can never keep metadata for a block the caller did not keep.
 *
 * Total over anything a log may hold: a value that is not an object, or whose
 * `blocks` is present but not an array, has no alignable entries and is
 * discarded like (b).
 */
export const align = (
  envelope: ReplayEnvelope,
  streamedCount: number,
  keep: ReadonlyArray<boolean>,
): ReplayEnvelope | undefined => {
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) return undefined
  const entries: unknown = envelope.blocks
  if (entries === undefined) return envelope
  if (!Array.isArray(entries) || entries.length !== streamedCount) return undefined
  let kept = 0
  for (let i = 0; i < streamedCount; i++) if (keep[i] === true) kept++
  if (kept === streamedCount) return envelope
  const pruned = new Array<unknown>(kept)
  for (let i = 0, j = 0; i < streamedCount; i++) if (keep[i] === true) pruned[j++] = entries[i]
  return { response: envelope.response, blocks: pruned }
}
