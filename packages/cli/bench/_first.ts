import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Loopback } from "@turnlog/testkit"
const BIN = process.env.BIN ?? "/work/main/packages/cli/bin/turnlog.js"
const extra = (process.env.EXTRA ?? "").split(" ").filter(Boolean)
const N = Number(process.env.N ?? 8)
const server = await Loopback.start()
const times: number[] = []
for (let i = 0; i < N; i++) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tl-first-")))
  writeFileSync(join(dir, "config.json"), JSON.stringify({ providers: { local: { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), apiKeyEnv: "LOCAL_BENCH_KEY", models: [{ id: "small", contextWindow: 128000, maxTokens: 4096, reasoning: false }] } } }))
  server.enqueue({ blocks: [{ type: "text", text: "Hello." }] })
  const before = server.requests().length
  const t0 = process.hrtime.bigint()
  const child = spawn(process.env.NODE ?? process.execPath, [...extra, BIN, "run", "--home", dir, "--model", "local/small", "Say hello."], { cwd: dir, env: { ...process.env, NODE_OPTIONS: "", LOCAL_BENCH_KEY: "sk-x", HOME: dir }, stdio: ["ignore", "ignore", "inherit"] })
  await server.waitForRequests(before + 1)
  times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  await new Promise((r) => child.on("exit", r))
}
times.sort((a, b) => a - b)
console.log("median", times[times.length >> 1].toFixed(0), "all", times.map((t) => t.toFixed(0)).join(" "))
await server.close()
