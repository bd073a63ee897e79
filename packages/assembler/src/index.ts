export * as Assembler from "./Assembler.js"
