/** What the store's recovery did to a session at load, as lines for stderr. */
import type { SessionStore } from "@turnlog/store"

export const describeRecovery = (id: string, recovery: SessionStore.Recovery): Array<string> => {
  const lines: Array<string> = []
  if (recovery.tornTail !== undefined) {
    const where = recovery.tornTail.sidecar === undefined ? "" : `, kept in ${recovery.tornTail.sidecar}`
    lines.push(
      `session ${id}: a torn tail of ${recovery.tornTail.bytes} bytes at line ${recovery.tornTail.line} was cut off${where}`,
    )
  }
  if (recovery.closedTurn !== undefined && recovery.closedTurn.length > 0) {
    lines.push(`session ${id}: a turn left open by a stopped process was closed as interrupted`)
  }
  return lines
}
