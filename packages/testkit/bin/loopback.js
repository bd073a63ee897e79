#!/usr/bin/env node
// The loopback provider as a process. Node 20 cannot run TypeScript, so register tsx first.
import { register } from "tsx/esm/api"

register()
await import("../src/loopback-main.ts")
