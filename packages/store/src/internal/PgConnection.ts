/**
 * The PostgreSQL store's connections: the URL turned into a `PgClient` whose
 * every connection carries TCP keepalives on both ends (a vanished host must not
 * keep its leases for hours, nor a vanished server keep a write waiting), the
 * store's schema as `search_path`, and the process's name (`turnlog <pid>
 * <host>`) as `application_name`, which is how another process names the
 * holder of a lease. A password never appears in what errors show.
 */
import { Socket } from "node:net"
import { hostname } from "node:os"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Either, Redacted, type Scope } from "effect"
import { StoreIOError } from "../StoreError.js"

export interface Connection {
  /** The URL with the password left out: what errors name. */
  readonly display: string
  /** The URL given to the driver (keepalives and search_path added to its `options`). */
  readonly url: string
  readonly schema?: string
}

/** Seconds: idle before the first probe, between probes, and unanswered probes before the peer is dead. */
export const KEEPALIVE = { idle: 10, interval: 5, count: 3 } as const

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Checks a `postgres://` URL and adds the server-side settings every connection needs. */
export const connectionOf = (url: string, schema?: string): Either.Either<Connection, StoreIOError> => {
  const refuse = (reason: string) => Either.left(new StoreIOError({ path: "the database URL", operation: "use", cause: new Error(reason) }))
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return refuse("expected a URL like postgres://user@host:5432/database")
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    return refuse(`expected a postgres:// URL, got one starting ${parsed.protocol}//`)
  }
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    return refuse(`the schema name ${JSON.stringify(schema)} is not a plain lower-case identifier`)
  }
  const settings = [
    `-c tcp_keepalives_idle=${KEEPALIVE.idle}`,
    `-c tcp_keepalives_interval=${KEEPALIVE.interval}`,
    `-c tcp_keepalives_count=${KEEPALIVE.count}`,
    ...(schema !== undefined ? [`-c search_path=${schema}`] : []),
  ]
  const given = parsed.searchParams.get("options")
  parsed.searchParams.set("options", [...(given !== null && given !== "" ? [given] : []), ...settings].join(" "))
  const shown = new URL(url)
  shown.password = ""
  shown.search = ""
  return Either.right({
    url: parsed.toString(),
    display: shown.toString() + (schema !== undefined ? ` (schema ${schema})` : ""),
    ...(schema !== undefined ? { schema } : {}),
  })
}

/**
 * `turnlog <pid> <host>`, then ` <program>` when the process named one: what
 * another process names the holder of a lease by. PostgreSQL keeps 63 bytes,
 * so a long host is cut first (a host name holds no space, so the program
 * still reads back whole).
 */
export const applicationName = (program?: string): string => {
  const bytes = (text: string) => Buffer.byteLength(text)
  const head = `turnlog ${process.pid} `
  const tail = program === undefined ? "" : ` ${program}`
  const host = hostname()
  const room = 63 - bytes(head) - bytes(tail)
  if (program === undefined || room < 1) return Buffer.from(head + host).subarray(0, 63).toString()
  return head + (bytes(host) <= room ? host : Buffer.from(host).subarray(0, room).toString().replace(/\uFFFD$/, "")) + tail
}

/** The holder a connection's `application_name` names, if it is a turnlog process's. */
export const holderIn = (name: string): { readonly pid: number; readonly host: string; readonly program?: string } | undefined => {
  const named = /^turnlog (\d+) (\S+) (.+)$/s.exec(name)
  if (named !== null) return { pid: Number(named[1]), host: named[2]!, program: named[3]! }
  const match = /^turnlog (\d+) (.*)$/s.exec(name)
  return match === null ? undefined : { pid: Number(match[1]), host: match[2]! }
}

// The client end probes too: a server that vanished fails the write instead of holding it.
const keepaliveSocket = () => new Socket().setKeepAlive(true, KEEPALIVE.idle * 1000)

/** The pool behind the store. Connecting fails with a `StoreIOError` naming the database, within `connectTimeout`. */
export const makeClient = (
  connection: Connection,
  options: {
    readonly connectTimeout: Duration.Duration
    readonly maxConnections: number
    /** The program the connections name (`Holder.program`), if any. */
    readonly program?: string
    /** The name the connections carry (default `turnlog <pid> <host> [program]`, which names a lease holder). */
    readonly applicationName?: string
  },
): Effect.Effect<PgClient.PgClient, StoreIOError, Scope.Scope> =>
  PgClient.make({
    url: Redacted.make(connection.url),
    applicationName: options.applicationName ?? applicationName(options.program),
    connectTimeout: options.connectTimeout,
    maxConnections: options.maxConnections,
    stream: keepaliveSocket,
  }).pipe(
    Effect.provide(Reactivity.layer),
    Effect.mapError((cause) => new StoreIOError({ path: connection.display, operation: "connect to", cause: cause.cause ?? cause })),
    Effect.catchAllDefect((cause) => new StoreIOError({ path: connection.display, operation: "connect to", cause })),
  )

export const DEFAULT_CONNECT_TIMEOUT = Duration.seconds(10)
