export * as Loopback from "./Loopback.js"
