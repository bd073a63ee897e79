// Opens a JSONL session whose log ends in a torn tail, and kills itself with
// SIGKILL half-way through copying that tail aside: what a process killed
// mid-copy leaves on disk, made exactly (argv: <home> <id>).
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type FileIo, nodeIo } from "../../src/internal/FileIo.js"
import * as Jsonl from "../../src/Jsonl.js"

const [home, id] = process.argv.slice(2) as [string, SessionId]
const paths = new Map<number, string>()
const io: FileIo = {
  ...nodeIo,
  openSync: ((path: string, flags: string, mode?: number) => {
    const fd = nodeIo.openSync(path, flags, mode)
    paths.set(fd, path)
    return fd
  }) as FileIo["openSync"],
  writeSync: (fd, buffer, offset, length, position) => {
    if ((paths.get(fd) ?? "").endsWith(".torn.tmp")) {
      nodeIo.writeSync(fd, buffer, offset, Math.floor(length / 2), position)
      process.kill(process.pid, "SIGKILL")
    }
    return nodeIo.writeSync(fd, buffer, offset, length, position)
  },
}

await Effect.runPromise(Effect.scoped(Effect.flatMap(Jsonl.makeJsonl({ home }, io), (store) => store.open(id))))
process.stderr.write("the copy finished: it was to be killed\n")
process.exit(3)
