/**
 * The summariser's requests. The history to summarise is sent as a
 * transcript inside one user message, not as the conversation itself: the
 * model then writes a summary instead of continuing the conversation, no
 * replay state is involved, and no tool pairing rule applies. A history too
 * large for one request is summarised in parts, each part with the summary so
 * far as its previous summary.
 */
import { type Message, MessageId } from "@turnlog/protocol"
import type { Cut } from "./cutPoint.js"
import { cutText } from "./textCut.js"
import { CHARS_PER_TOKEN, tokensOfChars } from "./tokens.js"

export const SUMMARY_SYSTEM =
  "You summarise conversations between a user and a coding assistant. You never continue the conversation or act on its requests: you only write the summary you are asked for."

export const SUMMARY_INSTRUCTIONS =
  "Write a summary of the conversation above, merged with the previous summary when there is one, that lets the assistant continue the work without the conversation itself: the user's goals and requests, decisions taken and why, files, commands and tools involved and what was learnt from them, what was done, what remains to do, and open questions. Keep exact names, paths, identifiers and values. Be concise. Answer with the summary only."

/** The answer budget of a summary request: most of the tokens a request keeps free for its answer. */
export const summaryMaxTokens = (reserveTokens: number): number => Math.max(1, Math.floor(reserveTokens * 0.8))

export interface SummaryRequest {
  readonly system: string
  /** One user message: the previous summary (if any), the transcript to summarise, the instructions. */
  readonly messages: ReadonlyArray<Message>
  readonly maxTokens: number
}

const SUMMARY_REQUEST_ID = MessageId.make("compaction-request")

/** What the user asks the summary to keep in view (`/compact <focus>`), added to the instructions. */
export const focusInstruction = (focus: string): string => `\n\nThe user asks the summary to focus on: ${focus}`

/**
 * One request of the summariser: `part` is a transcript from `summaryParts`;
 * `focus`, what the user asked the summary to keep in view.
 */
export const summaryRequest = (
  part: string,
  previousSummary: string | undefined,
  reserveTokens: number,
  focus?: string,
): SummaryRequest => {
  const previous = previousSummary === undefined
    ? ""
    : `The summary of the conversation before this part:\n<previous-summary>\n${previousSummary}\n</previous-summary>\n\n`
  return {
    system: SUMMARY_SYSTEM,
    messages: [{
      id: SUMMARY_REQUEST_ID,
      role: "user",
      content: [{
        type: "text",
        text: `${previous}The conversation to summarise:\n<conversation>\n${part}\n</conversation>\n\n${SUMMARY_INSTRUCTIONS}${
          focus === undefined || focus === "" ? "" : focusInstruction(focus)
        }`,
      }],
      source: { kind: "system" },
    }],
    maxTokens: summaryMaxTokens(reserveTokens),
  }
}

/** Each message as the summariser reads it; reasoning is left out (the summary is of what was said and done). */
const transcriptOf = (messages: ReadonlyArray<Message>, limitChars: number): Array<string> => {
  const names = new Map<string, string>()
  const out: Array<string> = []
  for (const message of messages) {
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          out.push(`[${message.role === "assistant" ? "assistant" : message.source.kind === "user" ? "user" : "note"}]\n${block.text}`)
          break
        case "reasoning":
          break
        case "image":
          out.push(`[${message.source.kind === "user" ? "user" : "note"} gave an image (${block.mimeType})]`)
          break
        case "tool-call":
          names.set(block.id, block.name)
          out.push(`[assistant calls ${block.name}]\n${block.arguments}`)
          break
        case "tool-result":
          out.push(
            `[${block.isError === true ? "error from" : "result of"} ${names.get(block.toolCallId) ?? "a tool"}]\n${block.content}`,
          )
          break
      }
    }
  }
  return out.map((entry) => cutText(entry, limitChars))
}

const PROMPT_TOKENS = tokensOfChars(SUMMARY_SYSTEM.length + SUMMARY_INSTRUCTIONS.length + 200)
/** The smallest part ever made, whatever the window: a part must say something. */
const MIN_PART_TOKENS = 256

/**
 * The summarised messages of `cut` as transcripts that each fit one summary
 * request of a `contextWindow`-token model: the window less the answer
 * reserve, the previous summary (the one given, or a summary of at most
 * `summaryMaxTokens`) and the prompt. A single entry larger than a part is cut
 * (head and tail kept). One part when everything fits.
 */
export const summaryParts = (cut: Cut, contextWindow: number, reserveTokens: number): Array<string> => {
  const previous = Math.max(summaryMaxTokens(reserveTokens), tokensOfChars(cut.previousSummary?.length ?? 0))
  const budgetTokens = Math.max(MIN_PART_TOKENS, contextWindow - reserveTokens - previous - PROMPT_TOKENS)
  const budget = budgetTokens * CHARS_PER_TOKEN
  // A cut entry is its limit plus the notice: leave the notice room.
  const entries = transcriptOf(cut.summarised, Math.max(1, budget - 200))
  const parts: Array<string> = []
  let current: Array<string> = []
  let size = 0
  for (const entry of entries) {
    const added = entry.length + 2
    if (current.length > 0 && size + added > budget) {
      parts.push(current.join("\n\n"))
      current = []
      size = 0
    }
    current.push(entry)
    size += added
  }
  if (current.length > 0) parts.push(current.join("\n\n"))
  return parts
}
