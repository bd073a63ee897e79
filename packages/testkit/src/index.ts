export * as Loopback from "./Loopback.js"
export * as ScenarioRunner from "./ScenarioRunner.js"
