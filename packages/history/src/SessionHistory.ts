/**
 * One session's history reconstruction, incremental across requests, for an
 * adapter to keep per session (`cache`).
 *
 * The reconstructor already decodes each message once (memoized by id), but
 * it still walks the whole history on every request. A session's history only
 * grows — it is derived from an append-only log — so a request whose messages
 * extend the previous request's (same first message, same message where the
 * previous one ended) hands only the new suffix to the reconstructor and
 * appends the result: the per-request cost follows what is new, not the
 * session's length. Any other history (a different or shortened one) is
 * reconstructed whole, still through the memo. A message of the previous
 * request that is now sent without its replay state (a `replay/degrade`
 * named it: same id, another object) makes the history a different one: its
 * earlier native answer must not be sent again. The caller's `revision` (the
 * request's `historyRevision`: the log's count of degrades) says so in one
 * comparison; without one, every earlier answer is checked for being the
 * same object.
 */
import { Effect } from "effect"
import type { Message, MessageId, SessionId } from "@turnlog/protocol"
import * as History from "./History.js"
import type { ReplayCodec } from "./Replay.js"

export interface SessionHistory<Native> {
  /**
   * The native form of each assistant message of `messages`, in order. Read it
   * before the next call: while the history only grows, the next call appends
   * to the same array (an earlier answer stays its prefix) instead of copying.
   */
  readonly reconstruct: (
    messages: ReadonlyArray<Message>,
    options: History.ReconstructOptions,
    revision?: number,
  ) => Effect.Effect<ReadonlyArray<Native>>
}

export const make = <Native>(codec: ReplayCodec<Native>): SessionHistory<Native> => {
  const reconstructor = History.makeReconstructor(codec)
  let seen = 0
  let firstId: MessageId | undefined
  let lastId: MessageId | undefined
  // The previous request's messages that carried replay state, and where: a
  // degrade strips it (a new object), which the ids alone would not show. Two
  // flat arrays checked in one tight loop: the check is a pointer comparison
  // per answer, a small part of what the request costs.
  let statedAt: Array<number> = []
  let stated: Array<Message> = []
  const unchanged = (messages: ReadonlyArray<Message>): boolean => {
    for (let k = 0; k < stated.length; k++) if (messages[statedAt[k]!] !== stated[k]) return false
    return true
  }
  // Owned and only ever appended to while the history extends, so a request
  // costs what is new: an earlier answer stays a valid prefix of this array.
  let natives: Array<Native> = []

  let lastRevision: number | undefined

  const reconstruct = (messages: ReadonlyArray<Message>, options: History.ReconstructOptions, revision?: number) =>
    Effect.suspend(() => {
      const extendsLast = seen > 0 && messages.length >= seen && messages[0]!.id === firstId &&
        messages[seen - 1]!.id === lastId &&
        (revision === undefined || lastRevision === undefined ? unchanged(messages) : revision === lastRevision)
      const from = extendsLast ? seen : 0
      if (from === 0) {
        statedAt = []
        stated = []
      }
      for (let i = from; i < messages.length; i++) {
        const m = messages[i]!
        if (m.source.kind === "model" && m.source.replayState !== undefined) {
          statedAt.push(i)
          stated.push(m)
        }
      }
      return Effect.map(reconstructor.all(from === 0 ? messages : messages.slice(from), options), (added) => {
        if (from === 0) natives = added
        else for (let i = 0; i < added.length; i++) natives.push(added[i]!)
        seen = messages.length
        lastRevision = revision
        firstId = messages[0]?.id
        lastId = messages[messages.length - 1]?.id
        return natives
      })
    })

  return { reconstruct }
}

/**
 * The histories an adapter keeps, one per session: the least recently used is
 * let go once more than `maxSessions` are kept (its next request starts a new
 * one, decoding its history whole once). A request without a session gets a
 * history of its own, kept by no one.
 */
export const cache = <Native>(codec: ReplayCodec<Native>, maxSessions: number): (sessionId: SessionId | undefined) => SessionHistory<Native> => {
  const sessions = new Map<SessionId, SessionHistory<Native>>()
  return (sessionId) => {
    if (sessionId === undefined) return make(codec)
    const found = sessions.get(sessionId)
    if (found !== undefined) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      sessions.delete(sessionId)
      sessions.set(sessionId, found)
      return found
    }
    const created = make(codec)
    sessions.set(sessionId, created)
    if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!)
    return created
  }
}
