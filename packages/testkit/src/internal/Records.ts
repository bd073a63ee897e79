/**
 * The loopback server's record of its requests: one entry per request in
 * arrival order, how each exchange ended, and the promises that wait for an
 * arrival or for an exchange to end.
 */
import type { Api } from "../wire/Wire.js"
import type * as Refusals from "../Refusals.js"

/**
 * How an exchange ended. `client-closed`: the client went away before the
 * response was complete (a cancelled stream, a killed process); `dropped`: the
 * server cut the connection (a `dropAfterEvents` reply, or the server closing).
 */
export type Outcome = "in-flight" | "completed" | "dropped" | "client-closed"

export interface RecordedRequest {
  /** 0-based arrival order. */
  readonly index: number
  readonly method: string
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown
  /** The wire format the path belongs to; undefined for a path no format serves (answered 404). */
  readonly api: Api | undefined
  readonly model: string | undefined
  /** Why the server refused the request without playing a reply (see `refuseReplay`, `contextWindow`). */
  readonly refused: Refusals.Refusal | undefined
  /** The status the server answered with; undefined until it answered. */
  readonly status: number | undefined
  /** Server-sent events written so far (a cancelled stream shows where the server stopped). */
  readonly events: number
  readonly outcome: Outcome
  /** The client closed the request before the response was complete. */
  readonly aborted: boolean
}

export type MutableRecord = {
  -readonly [K in keyof RecordedRequest]: RecordedRequest[K]
}

interface Waiter {
  readonly resolve: () => void
  readonly reject: (e: Error) => void
}

export const snapshot = (record: MutableRecord): RecordedRequest => ({ ...record })

export const make = () => {
  const records: Array<MutableRecord> = []
  const arrivalWaiters: Array<Waiter & { readonly count: number }> = []
  const settleWaiters: Array<Waiter & { readonly index: number }> = []
  let closing = false

  const notify = () => {
    for (const waiter of [...arrivalWaiters]) {
      if (records.length >= waiter.count) {
        arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
    for (const waiter of [...settleWaiters]) {
      const record = records[waiter.index]
      if (record !== undefined && record.outcome !== "in-flight") {
        settleWaiters.splice(settleWaiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
  }

  const end = (record: MutableRecord, outcome: Exclude<Outcome, "in-flight">) => {
    if (record.outcome !== "in-flight") return
    record.outcome = outcome
    record.aborted = outcome === "client-closed"
    notify()
  }

  return {
    /** The index the next request gets. */
    next: () => records.length,
    /** Records a request that just arrived. */
    add: (record: MutableRecord) => {
      records.push(record)
      notify()
    },
    end,
    /** Once the server is closing, a closed exchange was dropped by it, not by the client. */
    closedBy: (): Exclude<Outcome, "in-flight"> => (closing ? "dropped" : "client-closed"),
    all: () => records.map(snapshot),
    waitForRequests: (count: number) =>
      new Promise<void>((resolve, reject) => {
        if (records.length >= count) return resolve()
        if (closing) return reject(new Error("loopback: the server is closed"))
        arrivalWaiters.push({ count, resolve, reject })
      }).then(() => records.slice(0, count).map(snapshot)),
    settled: (index: number) =>
      new Promise<void>((resolve, reject) => {
        const record = records[index]
        if (record !== undefined && record.outcome !== "in-flight") return resolve()
        if (closing) return reject(new Error("loopback: the server is closed"))
        settleWaiters.push({ index, resolve, reject })
      }).then(() => snapshot(records[index]!)),
    isClosing: () => closing,
    /** The server stops: from now on nothing new is awaited, and a closed exchange was cut by it. */
    startClosing: () => {
      closing = true
    },
    /** Every exchange still in flight was cut by the server. */
    dropInFlight: () => {
      for (const record of records) end(record, "dropped")
    },
    /** The server has closed: whatever is still awaited now never will be. */
    closed: () => {
      const error = new Error("loopback: the server closed before this happened")
      for (const waiter of arrivalWaiters.splice(0)) waiter.reject(error)
      for (const waiter of settleWaiters.splice(0)) waiter.reject(error)
    },
  }
}
