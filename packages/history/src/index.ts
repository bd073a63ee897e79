export * as History from "./History.js"
export * as Compaction from "./Compaction.js"
export * from "./Replay.js"
