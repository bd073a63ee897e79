/**
 * The JSON-RPC errors the server answers with. Each message says what failed
 * and, where there is one, what to do about it: an editor shows it verbatim.
 */
import { RequestError } from "@agentclientprotocol/sdk"
import type { AgentLoop } from "@turnlog/agent"
import { type Failure, FailureMessage, isSessionId } from "@turnlog/protocol"

/**
 * An id no store could serve (a path, megabytes of text) is answered with one
 * sentence naming it by a clipped prefix and its length, and is not echoed in
 * the error's data: a 10 MB id gets a short answer, not a 20 MB one.
 */
const notAnId = (sessionId: string): RequestError | undefined =>
  isSessionId(sessionId) ? undefined : new RequestError(
    -32002,
    `${JSON.stringify(sessionId.slice(0, 40))}${
      sessionId.length > 40 ? `… (${sessionId.length} characters)` : ""
    } is not a session id (session ids are letters, digits, ".", "_" and "-")`,
  )

export const unknownSession = (sessionId: string): RequestError =>
  notAnId(sessionId) ??
    new RequestError(-32002, `session ${sessionId} is not open on this connection (use session/new or session/load)`, {
      sessionId,
    })

export const busy = (sessionId: string): RequestError =>
  new RequestError(
    -32600,
    `session ${sessionId} already has a prompt in flight; wait for its answer or send session/cancel`,
    { sessionId },
  )

/** No model can run yet (`auth_required`, -32000): `why` names what to set and where. */
export const authRequired = (why: string): RequestError => RequestError.authRequired(undefined, why)

export const invalidParams = (detail: string): RequestError => new RequestError(-32602, `Invalid params: ${detail}`)

/** A turn that ended in error: the provider's failure, named. */
export const turnFailed = (failure: Failure | undefined): RequestError =>
  new RequestError(
    -32603,
    failure === undefined
      ? "the turn failed without a reported cause"
      : `the turn failed: ${FailureMessage.readable(failure.message)} (${failure.code}${failure.status === undefined ? "" : `, HTTP ${failure.status}`})`,
    failure === undefined ? undefined : { failure },
  )

export const fromAgentError = (error: AgentLoop.AgentError): RequestError => {
  switch (error._tag) {
    case "SessionNotFound":
      return notAnId(error.sessionId) ?? new RequestError(-32002, error.message, { sessionId: error.sessionId })
    case "AgentBusy":
      return busy(error.sessionId)
    case "InvalidModel":
      return invalidParams(error.message)
    case "ModelUnavailable":
      return new RequestError(-32603, error.message, { failure: error.failure })
    case "SessionLocked":
    case "LeaseLost":
    case "StaleWriter":
    case "SessionCorrupt":
    case "UnsupportedVersion":
    case "UnknownEvent":
    case "StoreIOError":
      return new RequestError(-32603, `the session log could not be used: ${error.message}`, { reason: error._tag })
  }
}
