import { crashTest } from "./support/crashTest.js"

// Each kill costs a child start; the JSONL file takes the full 50, SQLite a smaller sample.
crashTest("sqlite", 10)
