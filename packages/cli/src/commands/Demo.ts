import { Effect } from "effect"
import type { Settings } from "../Settings.js"
export const demo = (settings: Settings) => Effect.sync(() => void settings)
