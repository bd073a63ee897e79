export * as Lines from "./Lines.js"
export * as Loopback from "./Loopback.js"
export * as Processes from "./Processes.js"
export * as ScenarioRunner from "./ScenarioRunner.js"
