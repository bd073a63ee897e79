import { Schema } from "effect"
import { SessionLog } from "@turnlog/protocol"
import * as fs from "node:fs"
const N = 100000
const path = "/tmp/exp/big.jsonl"
if (!fs.existsSync(path)) {
  const lines: string[] = [JSON.stringify({type:"session",version:1,id:"x",createdAt:"t",cwd:"/"})]
  for (let i = 1; i <= N; i++) lines.push(JSON.stringify({ seq: i, time: "2025-01-02T03:04:05.678Z", type: "assistant/chunk", data: { chunk: { type: "text-delta", index: 0, text: `${i} `.padEnd(1000, "lorem ipsum ") } } }))
  fs.writeFileSync(path, lines.join("\n") + "\n")
}
const time = (name: string, f: () => void) => { const ts=[]; for (let r = 0; r < 7; r++) { (globalThis as any).gc(); const t = performance.now(); f(); ts.push(performance.now() - t) } ts.sort((a,b)=>a-b); console.log(name, ts.map(x=>x.toFixed(0)).join(" ")) }
const reference = () => { const out: unknown[] = []; const text = fs.readFileSync(path, "utf8"); let n = 0; for (const l of text.split("\n")) if (l.length) { out.push(JSON.parse(l)); n++ } }
import { decodeLine } from "./src/internal/EventLine.js"
const is = Schema.is(SessionLog.SessionEvent)
const ours = (validate: boolean) => () => {
  const fd = fs.openSync(path, "r")
  const buf = Buffer.allocUnsafe(8 << 20)
  let carry = ""
  let pos = 0
  const out: unknown[] = []
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, pos)
    if (n === 0) break
    pos += n
    const last = buf.lastIndexOf(10, n - 1)
    const text = carry + buf.toString("utf8", 0, last + 1)
    carry = buf.toString("utf8", last + 1, n)
    let s = 0
    for (;;) {
      const e = text.indexOf("\n", s)
      if (e < 0) break
      let o: any
      if (validate && out.length > 0) { const r = decodeLine(text.slice(s, e)); if (r._tag !== "Event") throw r; o = r.event } else o = JSON.parse(text.slice(s, e))
      out.push(o)
      s = e + 1
    }
  }
  fs.closeSync(fd)
}
for (let k=0;k<3;k++){time("reference", reference)
time("ours", ours(true))}
