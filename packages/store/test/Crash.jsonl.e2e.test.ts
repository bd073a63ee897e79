import { crashTest } from "./support/crashTest.js"

// The JSONL layer is the default: it takes the full 50 kills.
crashTest("jsonl", 50)
