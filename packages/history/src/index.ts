export * as History from "./History.js"
export * from "./Replay.js"
