import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Loopback } from "@turnlog/testkit"
const server = await Loopback.start()
for (const home of ["/tmp/exp/long", "/tmp/exp/short"]) writeFileSync(join(home, "config.json"), JSON.stringify({
  model: "local/small",
  providers: { local: { api: "anthropic-messages", baseUrl: server.baseUrl("anthropic-messages"), apiKeyEnv: "LOCAL_BENCH_KEY",
    models: [{ id: "small", contextWindow: 1_000_000_000, maxTokens: 4096 }] } },
}))
for (let i = 0; i < 200; i++) server.enqueue({ blocks: [{ type: "text", text: "Short answer." }] })
console.log("ready")
setTimeout(() => server.close(), 1800_000)
