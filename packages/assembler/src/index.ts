export * as Assembler from "./Assembler.js"
export * as AssembledMessage from "./AssembledMessage.js"
