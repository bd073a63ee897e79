#!/usr/bin/env node
// The `turnlog` launcher: Node 20 cannot run TypeScript, so tsx is registered
// first (with this package's tsconfig, whatever the current directory), then
// the command's entry module is loaded.
import { fileURLToPath } from "node:url"
import { register } from "tsx/esm/api"

register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) })
await import("../src/main.ts")
