export * as Envelope from "./Envelope.js"
