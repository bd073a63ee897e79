/**
 * `session/list`: the stored sessions a page at a time (see `SessionList`);
 * those that cannot be read are left out, and how many is logged.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect, Either } from "effect"
import * as Errors from "../../Errors.js"
import * as SessionList from "../../SessionList.js"
import type { Deps } from "./Deps.js"

export const handler = (deps: Pick<Deps, "store" | "run" | "log">) => async ({ params }: acp.AgentRequestContext<acp.ListSessionsRequest>) => {
  const listed = await deps.run(
    deps.store.list().pipe(Effect.mapError((e) => Errors.fromAgentError(e))),
  )
  if (listed.unreadable.length > 0) {
    deps.log(`session/list: ${listed.unreadable.length} stored session(s) cannot be read and are not listed (see: turnlog doctor --all)`)
  }
  const page = SessionList.page(listed.sessions, params)
  if (Either.isLeft(page)) throw Errors.invalidParams(page.left)
  return page.right
}
