// A PostgreSQL server of a test's own, made with initdb in a temporary
// directory and listening on a free loopback port, so a test may stop and
// start it without touching the server other tests share. initdb refuses to
// run as root: as root the server runs as the `postgres` user (through
// runuser). Without the server's programs the tests that need one are
// skipped with one line, unless TURNLOG_REQUIRE_POSTGRES is set.
import { execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The directory of PostgreSQL's programs: TURNLOG_PG_BIN, else the newest Debian install. */
const binDir = (): string | undefined => {
  const given = process.env.TURNLOG_PG_BIN
  if (given !== undefined && given !== "") return given
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin")
}

const bin = binDir()
const asRoot = process.getuid?.() === 0
const postgresUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  try {
    return { uid: Number(execFileSync("id", ["-u", "postgres"]).toString()), gid: Number(execFileSync("id", ["-g", "postgres"]).toString()) }
  } catch {
    return undefined
  }
}
const owner = asRoot ? postgresUser() : undefined
const missing = bin === undefined
  ? "no PostgreSQL programs (initdb, pg_ctl) found; set TURNLOG_PG_BIN"
  : asRoot && owner === undefined
  ? "running as root and there is no postgres user to run a server as"
  : undefined
if (missing !== undefined && (process.env.TURNLOG_REQUIRE_POSTGRES ?? "") === "") {
  process.stderr.write(`Tests with a server of their own skipped: ${missing}; set TURNLOG_REQUIRE_POSTGRES=1 to fail instead\n`)
}

/** Whether the tests that start their own server are skipped here. */
export const skipPrivatePostgres = missing !== undefined && (process.env.TURNLOG_REQUIRE_POSTGRES ?? "") === ""

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { readonly port: number }
      server.close(() => resolve(port))
    })
  })

const run = (program: string, args: ReadonlyArray<string>) => {
  const path = join(bin!, program)
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, args]
  execFileSync(command, argv as Array<string>, { stdio: ["ignore", "pipe", "pipe"] })
}

export interface PrivateServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** Stops the server (fast shutdown: every connection is ended) and waits until it is down. */
  readonly stop: () => void
  /** Starts it again on the same port and waits until it answers. */
  readonly start: () => void
  /** Stops it if it runs and removes its directory. */
  readonly remove: () => void
}

/** Makes and starts a server of the test's own. */
export const startPrivateServer = async (): Promise<PrivateServer> => {
  const dir = mkdtempSync(join(tmpdir(), "turnlog-pg-"))
  if (owner !== undefined) {
    chownSync(dir, owner.uid, owner.gid)
    chmodSync(dir, 0o700)
  }
  const data = join(dir, "data")
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  const port = await freePort()
  let running = false
  const start = () => {
    run("pg_ctl", [
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`,
      "start",
    ])
    running = true
  }
  const stop = () => {
    run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
    running = false
  }
  start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: () => {
      try {
        if (running) stop()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
