/**
 * One turn of a transcript (`Transcript.ts`) as a section of the HTML page:
 * its items (prompts and answers as markdown, reasoning folded, tool calls
 * with their arguments, results folded when long, with their size), the
 * marks of what only turnlog knows (`Facts.ts`) and where and why the turn
 * stopped — the words `show` prints (`TranscriptText.describeEnd`). Every
 * text from the session goes through `Markdown.escape` or
 * `Markdown.markdown`; nothing from it is markup.
 */
import type { Item, PromptImage, Turn } from "../Transcript.js"
import { describeEnd, forkLine, systemLabel } from "../TranscriptText.js"
import type { Facts } from "./Facts.js"
import { escape, markdown } from "./Markdown.js"

/** A tool result longer than this (characters or lines) is folded, its size in the summary. */
export const FOLD_CHARS = 1200
export const FOLD_LINES = 16

const plural = (n: number, what: string) => `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`

/** A size a person reads: bytes of UTF-8, and lines. */
export const sizeOf = (text: string): string => {
  const bytes = Buffer.byteLength(text, "utf8")
  const size = bytes < 1024 ? plural(bytes, "byte") : bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`
  const lines = text === "" ? 0 : text.split("\n").length
  return `${size}, ${plural(lines, "line")}`
}

const time = (iso: string | undefined): string =>
  iso === undefined ? "" : `<time datetime="${escape(iso)}">${escape(iso.replace("T", " ").replace(/\.\d+Z$/, "Z"))}</time>`

/** Arguments as the model wrote them, indented when they are JSON. */
const argumentsText = (raw: string): string => {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2)
  } catch {
    return raw
  }
}

/** An edit's old and new text, when the arguments name them (`old…`/`new…` string fields), as removed and added lines. */
const editDiff = (raw: string): string | undefined => {
  let args: unknown
  try {
    args = JSON.parse(raw)
  } catch {
    return undefined
  }
  if (typeof args !== "object" || args === null) return undefined
  const entries = Object.entries(args as Record<string, unknown>)
  const oldText = entries.find(([k, v]) => /^old/i.test(k) && typeof v === "string")?.[1] as string | undefined
  const newText = entries.find(([k, v]) => /^new/i.test(k) && typeof v === "string")?.[1] as string | undefined
  if (oldText === undefined || newText === undefined) return undefined
  const lines = (text: string, sign: string, cls: string) => text.split("\n").map((line) => `<span class="${cls}">${sign} ${escape(line)}</span>`).join("\n")
  return `<pre class="diff">${lines(oldText, "-", "del")}\n${lines(newText, "+", "add")}</pre>`
}

/** A result that carries a unified diff (an `edit_file` result: a summary line, then `--- a/…`, `+++ b/…`, hunks). */
const UNIFIED_DIFF = /^[^\n]*\n--- a\/[^\n]*\n\+\+\+ b\/[^\n]*\n@@ /

/** A result's text; a unified diff's lines coloured as removed, added and hunk heads. */
const resultBody = (content: string): string => {
  if (!UNIFIED_DIFF.test(content)) return `<pre class="out">${escape(content)}</pre>`
  const [summary = "", ...rest] = content.split("\n")
  const line = (text: string, index: number) =>
    index < 2
      ? `<span class="head">${escape(text)}</span>`
      : text.startsWith("@@")
      ? `<span class="hunk">${escape(text)}</span>`
      : text.startsWith("+")
      ? `<span class="add">${escape(text)}</span>`
      : text.startsWith("-")
      ? `<span class="del">${escape(text)}</span>`
      : escape(text)
  return `<pre class="out diff">${escape(summary)}\n${rest.map(line).join("\n")}</pre>`
}

const toolResult = (item: Extract<Item, { role: "tool-result" }>): string => {
  const lines = item.content.split("\n").length
  const head = `<div class="who">tool result <code>${escape(item.callId)}</code>${item.isError ? ` <span class="badge problem">error</span>` : ""}</div>`
  const body = resultBody(item.content)
  const cls = `item tool tool-result${item.isError ? " error" : ""}`
  if (item.content.length <= FOLD_CHARS && lines <= FOLD_LINES) return `<div class="${cls}">${head}${body}</div>`
  return `<div class="${cls}">${head}<details class="fold"><summary>result folded: ${sizeOf(item.content)}</summary>${body}</details></div>`
}

const SHOWN_IMAGE = /^image\/(png|jpeg|gif|webp)$/
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * A prompt's image, shown from a data: URL (the page's policy allows no other
 * source). Only a known image type with base64 data becomes one; anything else
 * is named, not shown.
 */
const imageHtml = (image: PromptImage): string =>
  SHOWN_IMAGE.test(image.mimeType) && BASE64.test(image.data)
    ? `<img class="prompt-image" alt="image (${image.mimeType})" src="data:${image.mimeType};base64,${image.data}">`
    : `<p class="prompt-image">an image of type <code>${escape(image.mimeType)}</code>, not shown</p>`

export const itemHtml = (item: Item): string => {
  switch (item.role) {
    case "user":
      return `<div class="item user"><div class="who">user</div><div class="md">${markdown(item.text)}</div>${
        (item.images ?? []).map(imageHtml).join("")
      }</div>`
    case "assistant": {
      const how = item.interrupted === true
        ? ` <span class="badge problem">interrupted</span>`
        : item.failed === true
        ? ` <span class="badge problem">shown before the failure</span>`
        : ""
      const reasoning = item.reasoning === undefined ?
        "" :
        `<details class="reasoning"><summary>thinking · ${sizeOf(item.reasoning)}</summary><div class="md">${markdown(item.reasoning)}</div></details>`
      const text = item.text === "" && how === "" ? "" : `<div class="md">${markdown(item.text)}</div>`
      return `<div class="item assistant${how === "" ? "" : " problem"}"><div class="who">assistant${how}</div>${reasoning}${text}</div>`
    }
    case "tool-call": {
      const diff = editDiff(item.arguments)
      return `<div class="item tool tool-call"><div class="who">tool call <b>${escape(item.name)}</b> <code>${
        escape(item.callId)
      }</code></div><pre class="args">${escape(argumentsText(item.arguments))}</pre>${diff ?? ""}</div>`
    }
    case "tool-result":
      return toolResult(item)
    case "system-prompt":
      // Not conversation: which prompt the requests from here on were sent with.
      return `<div class="item system-prompt"><div class="who">system prompt</div><p><code>${escape(systemLabel(item, "/"))}</code></p></div>`
    case "fork":
      return `<div class="item mark fork"><div class="who">fork</div><p>${escape(forkLine(item))}</p></div>`
    case "compaction":
      return `<div class="item mark compaction"><div class="who">compaction${
        item.between === true ? " (between turns)" : ""
      }</div><p>The history before event ${item.firstKeptSeq} was summarised by <code>${escape(item.route)}</code>: about ${
        item.tokensBefore.toLocaleString("en-US")
      } → ${item.tokensAfter.toLocaleString("en-US")} tokens. Requests start from this summary:</p><div class="md">${markdown(item.summary)}</div></div>`
  }
}

const mark = (kind: string, title: string, body: string) => `<div class="item mark ${kind}"><div class="who">${title}</div>${body}</div>`

/** The marks of what only turnlog knows, from the turn's facts. */
export const marksHtml = (facts: Facts, turn: Turn): string => {
  let out = ""
  for (const cut of facts.cuts) {
    const dropped = turn.end?.dropped ?? []
    const what = dropped.length === 0
      ? "No tool call was being made; the kept blocks were stored."
      : `Dropped, never run: ${dropped.map((d) => `<code>${escape(d)}</code>`).join(", ")}.`
    const entries = cut.streamedEntries === undefined
      ? ""
      : ` The raw finish chunk's envelope had ${cut.streamedEntries} block ${
        cut.streamedEntries === 1 ? "entry" : "entries"
      }; the stored one has one per kept block.`
    out += mark(
      "cut",
      "cut at the output limit",
      `<p>Message <code>${escape(cut.messageId)}</code> stopped at max tokens. ${what}${entries}</p>` +
        `<details><summary>pruned envelope</summary><pre>${escape(JSON.stringify(cut.pruned ?? null, null, 2))}</pre></details>`,
    )
  }
  for (const d of facts.degraded) {
    const moved = d.moved === undefined
      ? ""
      : `, written by the ${escape(d.moved.writtenBy)} adapter, is sent by the ${escape(d.moved.sentBy)} adapter from this turn on`
    out += mark(
      "degrade",
      "INVALID_REPLAY_STATE",
      `<p>Message <code>${escape(d.messageId)}</code> (${escape(d.route)})${moved === "" ? " is sent" : moved} as provider-neutral content: ${
        escape(d.reason)
      }</p>`,
    )
  }
  for (const r of facts.refusals) {
    out += mark(
      "refusal",
      "replay/degrade",
      `<p>${escape(r.route)} refused the replay state of ${
        r.messageIds.map((id) => `<code>${escape(id)}</code>`).join(", ")
      } (event ${r.seq}); sent provider-neutral since: ${escape(r.reason)}</p>`,
    )
  }
  for (const r of facts.retries) {
    out += mark("retry", "retry", `<p>Step ${r.step}, attempt ${r.attempt} on ${escape(r.route)}.</p>`)
  }
  for (const r of facts.rules) {
    out += mark(
      "rule",
      "permission",
      `<p>Standing answer for <code>${escape(r.tool)}</code>: ${r.decision === "allow" ? "always allow" : "always reject"}.</p>`,
    )
  }
  return out
}

export interface TurnLabels {
  readonly problem: boolean
  readonly badges: ReadonlyArray<string>
}

/** The short words a turn is tagged with (its heading and the sidebar), and whether it had a problem. */
export const labelsOf = (turn: Turn, facts: Facts): TurnLabels => {
  const badges: Array<string> = []
  const reason = turn.end?.reason
  if (turn.end === undefined) badges.push("open")
  else if (reason !== "completed") badges.push(reason === "max-tokens" ? "cut" : reason ?? "")
  if (facts.degraded.length > 0) badges.push("degraded")
  if (facts.refusals.length > 0) badges.push("refused")
  if (facts.retries.length > 0) badges.push("retried")
  if (turn.items.some((i) => i.role === "compaction")) badges.push("compaction")
  if (turn.items.some((i) => i.role === "tool-result" && i.isError)) badges.push("tool error")
  if (turn.compacted === true) badges.push("compacted")
  const problem = badges.some((b) => b !== "compaction" && b !== "compacted")
  return { problem, badges }
}

const firstPrompt = (turn: Turn): string => {
  const text = turn.items.find((i) => i.role === "user")?.text ?? ""
  const line = text.trim().split("\n")[0] ?? ""
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/**
 * Turn `n` (1-based) as one section; `writer`: the live process writing a turn still open;
 * `live`: an open turn shown as it is written (`view`).
 */
export const turnHtml = (n: number, turn: Turn, facts: Facts, writer?: number, live = false): string => {
  const { badges, problem } = labelsOf(turn, facts)
  const tokens = facts.inputTokens + facts.outputTokens === 0
    ? ""
    : ` · ${facts.inputTokens.toLocaleString("en-US")} in / ${facts.outputTokens.toLocaleString("en-US")} out tokens`
  const models = facts.routes.length === 0 ? "" : ` · ${facts.routes.map(escape).join(", ")}`
  const adapters = facts.adapters.length === 0
    ? ""
    : ` · ${facts.adapters.length === 1 ? "adapter" : "adapters"} ${facts.adapters.map(escape).join(", ")}`
  const badgeHtml = badges.map((b) => `<span class="badge${b === "compaction" || b === "compacted" ? "" : " problem"}">${escape(b)}</span>`).join(" ")
  const compacted = turn.compacted === true
    ? `<p class="note">Compacted: the model sees this turn only through a summary.</p>`
    : ""
  const end = turn.end === undefined ? "open" : turn.end.reason
  return `<section class="turn${problem ? " problem" : ""}" id="turn-${n}" data-turn="${n}" data-end="${end}" data-title="${
    escape(firstPrompt(turn))
  }" data-badges="${escape(badges.join(" "))}">` +
    `<h2><a href="#turn-${n}">Turn ${n}</a> ${badgeHtml}</h2>` +
    `<div class="meta">${time(facts.startedAt)}${models}${adapters}${tokens}</div>${compacted}` +
    turn.items.map(itemHtml).join("") +
    marksHtml(facts, turn) +
    `<div class="end end-${end}">Turn ${n} ${live && turn.end === undefined ? "in progress: shown as it is written" : escape(describeEnd(turn.end, writer))}${
      facts.endedAt === undefined ? "" : ` · ${time(facts.endedAt)}`
    }</div></section>\n`
}
