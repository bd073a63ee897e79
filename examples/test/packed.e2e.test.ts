// The packages as an application gets them: every public package packed into
// one folder by `npm run pack-all -- <dir>`, the tarballs installed into a
// fresh app that already has effect the way the library guide says
// (`npm install <dir>/*.tgz`: the siblings resolve to each other),
// the examples type-checked by the app's own tsc (strict settings) against the
// compiled declarations, and run with plain `node`. A packaging mistake (a
// missing dist file, an export to a .ts source, a sibling range that does not
// resolve, a second copy of effect) fails here.
import { spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))
const examples = join(root, "examples")
const require = createRequire(import.meta.url)

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
}
const manifests: Array<Manifest> = readdirSync(join(root, "packages"))
  .map((dir) => JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest)
const published = manifests.filter((manifest) => manifest.private !== true)

// The app is outside the monorepo: none of its settings (the source export
// condition in NODE_OPTIONS, npm's per-run configuration) may leak into it.
const appEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key === "NODE_OPTIONS" || (key.startsWith("npm_") && key !== "npm_config_cache")) continue
    env[key] = value
  }
  return env
}

// Asynchronous on purpose: a worker blocked for a minute in a synchronous
// spawn misses vitest's own RPC deadlines.
const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = appEnv()) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => void (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => void (stderr += text))
    child.on("error", reject)
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })
const npm = async (args: ReadonlyArray<string>, cwd: string) => {
  const result = await run("npm", [...args, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], cwd)
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} failed in ${cwd}:\n${result.stderr}`)
  return result.stdout
}

interface PackedFile {
  readonly path: string
}
interface Packed {
  readonly name: string
  readonly filename: string
  readonly files: ReadonlyArray<PackedFile>
}

let work = ""
let app = ""
let packed: Array<Packed> = []

beforeAll(async () => {
  // dist must be what the sources compile to now (a no-op when `npm test` just built it).
  const built = await run(process.execPath, [require.resolve("typescript/bin/tsc"), "-b", "tsconfig.build.json"], root)
  if (built.status !== 0) throw new Error(`tsc -b tsconfig.build.json failed:\n${built.stdout}${built.stderr}`)
  work = mkdtempSync(join(tmpdir(), "turnlog-packed-"))
  const tarballs = join(work, "tarballs")
  mkdirSync(tarballs)
  const packing = await run(process.execPath, [join(root, "scripts", "packaging", "pack-all.mjs"), tarballs, "--json"], root)
  if (packing.status !== 0) throw new Error(`pack-all failed:\n${packing.stderr}`)
  packed = JSON.parse(packing.stdout) as Array<Packed>

  app = join(work, "app")
  mkdirSync(app)
  const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
  const manifest = {
    name: "turnlog-example-app",
    private: true,
    type: "module",
    dependencies: { effect: "~3.22.4" } as Record<string, string>,
    devDependencies: { typescript: own.devDependencies["typescript"], "@types/node": own.devDependencies["@types/node"] },
  }
  // An app that already has effect…
  writeFileSync(join(app, "package.json"), JSON.stringify(manifest, null, 2))
  await npm(["install", "--ignore-scripts"], app)
  // …installs every tarball of the folder at once (and the AI SDK's model interface, which ai-sdk.ts implements);
  // the siblings' ranges are met by the tarballs, never the registry.
  const aiSdk = JSON.parse(readFileSync(join(root, "packages", "llm-ai-sdk", "package.json"), "utf8")) as {
    dependencies: Record<string, string>
  }
  const tgz = readdirSync(tarballs).filter((file) => file.endsWith(".tgz")).map((file) => join(tarballs, file))
  await npm(["install", "--ignore-scripts", ...tgz, `@ai-sdk/provider@${aiSdk.dependencies["@ai-sdk/provider"]}`], app)
  // The AI SDK's declarations import json-schema's types: an app that checks its libraries (skipLibCheck off) adds them.
  await npm(["install", "--ignore-scripts", "--save-dev", "@types/json-schema@^7.0.15"], app)
  for (const file of ["assemble.ts", "reconstruct.ts", "turn.ts", "ai-sdk.ts", "tsconfig.json"]) cpSync(join(examples, file), join(app, file))
}, 600_000)

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true })
}, 300_000)

const example = async (name: string): Promise<unknown> => {
  const result = await run(process.execPath, [join(app, "out", `${name}.js`)], app)
  expect(result.stderr).toBe("")
  expect(result.status).toBe(0)
  return JSON.parse(result.stdout)
}

describe("the packed packages", () => {
  it("are the published packages, each with dist, README and LICENSE and no tests, benches or tsconfig", () => {
    expect(packed.map((p) => p.name).sort()).toEqual(published.map((m) => m.name).sort())
    expect(published.map((m) => m.name)).toEqual(expect.arrayContaining(["@turnlog/agent", "@turnlog/llm-ai-sdk"]))
    expect(readdirSync(join(work, "tarballs")).sort()).toEqual(packed.map((p) => p.filename).sort())
    for (const p of packed) {
      const paths = p.files.map((file) => file.path)
      expect(paths, p.name).toEqual(
        expect.arrayContaining(["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts", "dist/index.js.map", "dist/index.d.ts.map"]),
      )
      expect(paths.filter((path) => /^(test|bench|build)\/|tsconfig|tsbuildinfo/.test(path)), p.name).toEqual([])
    }
  })

  it("have the manifests scripts/packaging/manifests.mjs derives", async () => {
    const result = await run(process.execPath, [join(root, "scripts", "packaging", "manifests.mjs"), "--check"], root)
    expect(result.stderr).toBe("packaging: every manifest is as derived\n")
    expect(result.status).toBe(0)
  })

  it("type-check the examples with the app's own tsc against the compiled declarations", async () => {
    const result = await run(process.execPath, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], app)
    expect(result.stdout + result.stderr).toBe("")
    expect(result.status).toBe(0)
    // The whole app's declarations, libraries included, on a machine that may be busy: no time is asserted.
  }, 600_000)

  it("leave an app that already had effect with exactly one copy", async () => {
    const copies = JSON.parse(await npm(["query", "#effect"], app)) as Array<{ readonly location: string; readonly version: string }>
    expect(copies.map((c) => c.location)).toEqual(["node_modules/effect"])
  })

  it("assemble a stream cut off at the output limit: the tool call and its envelope entry are dropped", async () => {
    expect(await example("assemble")).toEqual({
      finish: { kind: "max-tokens" },
      content: [{ type: "text", text: "Reading the file." }],
      source: {
        kind: "model",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        replayState: {
          response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "length" },
          blocks: [{ type: "text", textSignature: "sig-0" }],
        },
      },
    })
  })

  it("reconstruct a history: the version-1 message degrades with a diagnostic, the version-2 one replays natively", async () => {
    expect(await example("reconstruct")).toEqual({
      natives: [
        { api: "turnlog-foreign", content: [{ type: "text", text: "Hello." }] },
        { api: "anthropic-messages", content: [{ type: "text", text: "Hello again." }] },
      ],
      diagnostics: [{ code: "INVALID_REPLAY_STATE", messageId: "msg_legacy", reason: "legacy flat version-1 pi-ai state" }],
    })
  })

  it("run one turn with the JSONL store, the scripted model and allow-all permissions", async () => {
    expect(await example("turn")).toEqual({
      updates: ["turn-start", "tool-call", "tool-running", "tool-result", "text-delta", "turn-end completed"],
      events: [
        "turn/start",
        "user/message",
        "request/start",
        "assistant/chunks",
        "assistant/message",
        "tool/call",
        "tool/result",
        "request/start",
        "assistant/chunks",
        "assistant/message",
        "turn/end",
      ],
      file: "hi\n",
    })
  })

  it("run a turn through createAgent with an AI SDK model and a custom tool, its result sent back as a tool message", async () => {
    expect(await example("ai-sdk")).toEqual({
      reply: { text: "It is sunny in Oslo.", reason: "completed", toolResults: [{ name: "weather", content: "Sunny in Oslo, 21 °C", isError: false }] },
      secondPrompt: [
        { role: "user", content: [{ type: "text", text: "Weather in Oslo?" }] },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "weather", input: { city: "Oslo" } }] },
        {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "call_1", toolName: "weather", output: { type: "text", value: "Sunny in Oslo, 21 °C" } }],
        },
      ],
    })
  })

  // pi-ai declares Node >= 22.19 (its stream paths run on 20): under
  // engine-strict only an app that installs @turnlog/llm-pi-ai is refused.
  it("under engine-strict on Node 20, refuse only pi-ai, which only @turnlog/llm-pi-ai brings", async () => {
    const manifestFile = join(app, "package.json")
    const full = readFileSync(manifestFile, "utf8")
    const strict = ["install", "--dry-run", "--engine-strict", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"]
    const major = Number(process.versions.node.split(".")[0])
    const refused = await run("npm", strict, app)
    if (major < 22) {
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain("Not compatible with your version of node/npm: @earendil-works/pi-ai@")
      expect(refused.stderr).toContain(`Required: {"node":">=22.19.0"}`)
    }
    const without = JSON.parse(full) as { dependencies: Record<string, string> }
    delete without.dependencies["@turnlog/llm-pi-ai"]
    writeFileSync(manifestFile, JSON.stringify(without, null, 2))
    try {
      const accepted = await run("npm", strict, app)
      expect(accepted.stderr).not.toContain("notsup")
      expect(accepted.status).toBe(0)
    } finally {
      writeFileSync(manifestFile, full)
    }
  })
})
