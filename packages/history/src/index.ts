export * as History from "./History.js"
export * as Compaction from "./Compaction.js"
export * as SessionHistory from "./SessionHistory.js"
export * from "./Replay.js"
