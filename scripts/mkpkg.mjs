// One-off scaffolder for the workspace packages (kept for adding packages later).
import fs from "node:fs"
import path from "node:path"
const EFFECT = "~3.22.4"
const pkgs = {
  protocol: { deps: { effect: EFFECT }, refs: [] },
  envelope: { deps: { effect: EFFECT, "@turnlog/protocol": "*" }, refs: ["protocol"] },
  assembler: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@turnlog/envelope": "*" }, refs: ["protocol", "envelope"] },
  history: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@turnlog/envelope": "*" }, refs: ["protocol", "envelope"] },
  llm: { deps: { effect: EFFECT, "@turnlog/protocol": "*" }, refs: ["protocol"] },
  testkit: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@agentclientprotocol/sdk": "~2.4.0" }, refs: ["protocol"] },
  "llm-pi-ai": { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@turnlog/envelope": "*", "@turnlog/history": "*", "@turnlog/llm": "*", "@earendil-works/pi-ai": "~1.6.0" }, devDeps: { "@turnlog/testkit": "*", "@turnlog/assembler": "*" }, refs: ["protocol", "envelope", "history", "llm", "testkit", "assembler"] },
  store: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@effect/platform": "~0.97.2", "@effect/platform-node": "~0.108.2", "@effect/sql": "~0.52.1", "@effect/sql-sqlite-node": "~0.53.0", "@effect/experimental": "~0.61.1", "@effect/cluster": "~0.60.2", "@effect/rpc": "~0.76.2", "better-sqlite3": "^12.6.2" }, refs: ["protocol"] },
  agent: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@turnlog/envelope": "*", "@turnlog/assembler": "*", "@turnlog/history": "*", "@turnlog/llm": "*", "@turnlog/llm-pi-ai": "*", "@turnlog/store": "*" }, devDeps: { "@turnlog/testkit": "*" }, refs: ["protocol", "envelope", "assembler", "history", "llm", "llm-pi-ai", "store", "testkit"] },
  acp: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@turnlog/agent": "*", "@turnlog/store": "*", "@turnlog/llm": "*", "@agentclientprotocol/sdk": "~2.4.0" }, devDeps: { "@turnlog/testkit": "*" }, refs: ["protocol", "agent", "store", "llm", "testkit"] },
  cli: { deps: { effect: EFFECT, "@turnlog/protocol": "*", "@turnlog/history": "*", "@turnlog/assembler": "*", "@turnlog/llm": "*", "@turnlog/llm-pi-ai": "*", "@turnlog/store": "*", "@turnlog/agent": "*", "@turnlog/acp": "*", "@effect/cli": "~0.77.2", "@effect/printer": "~0.51.0", "@effect/printer-ansi": "~0.51.0", "@effect/platform": "~0.97.2", "@effect/platform-node": "~0.108.2", tsx: "~4.23.15" }, devDeps: { "@turnlog/testkit": "*" }, refs: ["protocol", "history", "assembler", "llm", "llm-pi-ai", "store", "agent", "acp", "testkit"] },
}
for (const [name, spec] of Object.entries(pkgs)) {
  const dir = path.join("packages", name)
  fs.mkdirSync(path.join(dir, "src"), { recursive: true })
  fs.mkdirSync(path.join(dir, "test"), { recursive: true })
  const pj = {
    name: `@turnlog/${name}`,
    version: "0.1.0",
    private: true,
    type: "module",
    exports: { ".": "./src/index.ts", "./*": "./src/*.ts" },
    dependencies: spec.deps,
    ...(spec.devDeps ? { devDependencies: spec.devDeps } : {}),
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pj, null, 2) + "\n")
  const tc = {
    extends: "../../tsconfig.base.json",
    compilerOptions: { rootDir: ".", outDir: "build", tsBuildInfoFile: "build/tsconfig.tsbuildinfo" },
    include: ["src", "test", "bench"],
    references: spec.refs.map((r) => ({ path: `../${r}` })),
  }
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tc, null, 2) + "\n")
}
const root = { files: [], references: Object.keys(pkgs).map((n) => ({ path: `packages/${n}` })) }
fs.writeFileSync("tsconfig.json", JSON.stringify(root, null, 2) + "\n")
