/**
 * OpenAI Responses streaming (`openai-responses` in pi-ai), as the `openai` SDK
 * reads it: POST `<baseUrl>/responses`, SSE of `event: <type>` / `data: {type,
 * sequence_number, …}` — response.created, response.in_progress, per output
 * item its added / delta / done events, and response.completed (or
 * response.incomplete with `incomplete_details.reason: "max_output_tokens"`).
 *
 * baseUrl: the SDK appends `/responses` to the baseUrl as given, and the real
 * one is `https://api.openai.com/v1`; so point a provider at `<url>/v1`.
 *
 * Each block is one output item with a stable id in OpenAI's shape:
 * - reasoning → a `reasoning` item (`rs_…`) whose summary streams as
 *   reasoning_summary_text deltas; its signature is the item's
 *   `encrypted_content`. pi-ai keeps the whole done item as the block's
 *   signature and replays it verbatim as an input item;
 * - redacted reasoning → a reasoning item with an empty summary and the data as
 *   `encrypted_content`;
 * - text → a `message` item (`msg_…`); pi-ai keeps its id as the text signature;
 * - tool call → a `function_call` item (`fc_…`) with the block's id as
 *   `call_id`; pi-ai names the call `<call_id>|<item id>`.
 * A tool call cut by the output limit streams its argument deltas and never
 * gets its done events; the response ends with response.incomplete and lists
 * the item with status `incomplete`.
 */
import type { Block, HttpErrorReply, StreamReply } from "../Reply.js"
import { hex } from "./Ids.js"
import { openAiErrorResponse } from "./OpenAiCompletions.js"
import {
  eventFrame,
  jsonDeltas,
  modelField,
  objectsOf,
  type RenderContext,
  type Replayed,
  stringField,
  textDeltas,
  type WireFormat,
} from "./Wire.js"

type Item = Record<string, unknown>

interface Rendered {
  /** Events of the item, without sequence numbers. */
  readonly events: ReadonlyArray<Item>
  /** The item as the final response lists it. */
  readonly item: Item
}

const itemId = (prefix: string, context: RenderContext, index: number, given: string | undefined) =>
  given ?? `${prefix}_${hex(`${context.seed}/item/${index}`, 48)}`

const reasoningItem = (id: string, summary: string | undefined, encrypted: string | undefined): Item => ({
  id,
  type: "reasoning",
  summary: summary === undefined ? [] : [{ type: "summary_text", text: summary }],
  ...(encrypted === undefined ? {} : { encrypted_content: encrypted }),
})

const renderBlock = (block: Block, output_index: number, context: RenderContext): Rendered => {
  switch (block.type) {
    case "reasoning": {
      const id = itemId("rs", context, output_index, block.id)
      const done = reasoningItem(id, block.text, block.signature)
      const part = (text: string) => ({ type: "summary_text", text })
      const at = { item_id: id, output_index, summary_index: 0 }
      return {
        item: done,
        events: [
          { type: "response.output_item.added", output_index, item: reasoningItem(id, undefined, undefined) },
          { type: "response.reasoning_summary_part.added", ...at, part: part("") },
          ...textDeltas(block.text).map((delta) => ({ type: "response.reasoning_summary_text.delta", ...at, delta })),
          { type: "response.reasoning_summary_text.done", ...at, text: block.text },
          { type: "response.reasoning_summary_part.done", ...at, part: part(block.text) },
          { type: "response.output_item.done", output_index, item: done },
        ],
      }
    }
    case "redacted-reasoning": {
      const id = itemId("rs", context, output_index, block.id)
      const done = reasoningItem(id, undefined, block.data)
      return {
        item: done,
        events: [
          { type: "response.output_item.added", output_index, item: reasoningItem(id, undefined, undefined) },
          { type: "response.output_item.done", output_index, item: done },
        ],
      }
    }
    case "text": {
      const id = itemId("msg", context, output_index, block.id)
      const part = (text: string) => ({ type: "output_text", annotations: [], logprobs: [], text })
      const message = (status: string, content: ReadonlyArray<Item>) => ({
        id,
        type: "message",
        status,
        content,
        role: "assistant",
      })
      const at = { item_id: id, output_index, content_index: 0 }
      const done = message("completed", [part(block.text)])
      return {
        item: done,
        events: [
          { type: "response.output_item.added", output_index, item: message("in_progress", []) },
          { type: "response.content_part.added", ...at, part: part("") },
          ...textDeltas(block.text).map((delta) => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
          { type: "response.output_text.done", ...at, text: block.text, logprobs: [] },
          { type: "response.content_part.done", ...at, part: part(block.text) },
          { type: "response.output_item.done", output_index, item: done },
        ],
      }
    }
    case "tool-call": {
      const id = itemId("fc", context, output_index, block.itemId)
      const call = (status: string, args: string) => ({
        id,
        type: "function_call",
        status,
        arguments: args,
        call_id: block.id,
        name: block.name,
      })
      const deltas = jsonDeltas(block.arguments).map((delta) => ({
        type: "response.function_call_arguments.delta",
        item_id: id,
        output_index,
        delta,
      }))
      const added = { type: "response.output_item.added", output_index, item: call("in_progress", "") }
      if (block.complete === false) return { item: call("incomplete", block.arguments), events: [added, ...deltas] }
      const done = call("completed", block.arguments)
      return {
        item: done,
        events: [
          added,
          ...deltas,
          { type: "response.function_call_arguments.done", item_id: id, output_index, arguments: block.arguments },
          { type: "response.output_item.done", output_index, item: done },
        ],
      }
    }
  }
}

const requestField = (body: unknown, field: string): unknown => typeof body === "object" && body !== null ? (body as Record<string, unknown>)[field] : undefined

const render = (reply: StreamReply, context: RenderContext): ReadonlyArray<string> => {
  const rendered = reply.blocks.map((block, index) => renderBlock(block, index, context))
  const truncated = reply.finish === "max-tokens"
  const response = (status: string, output: ReadonlyArray<Item>, usage: unknown) => ({
    id: reply.responseId ?? `resp_${hex(`${context.seed}/response`, 48)}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: requestField(context.requestBody, "max_output_tokens") ?? null,
    model: reply.responseModel ?? context.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: requestField(context.requestBody, "reasoning") ?? { effort: null, summary: null },
    service_tier: "default",
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: requestField(context.requestBody, "tools") ?? [],
    top_p: 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: {},
  })
  const events: Array<Item> = [
    { type: "response.created", response: response("in_progress", [], null) },
    { type: "response.in_progress", response: response("in_progress", [], null) },
    ...rendered.flatMap((item) => item.events),
  ]
  const status = truncated ? "incomplete" : "completed"
  events.push({
    type: `response.${status}`,
    response: response(status, rendered.map((item) => item.item), {
      input_tokens: reply.usage.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: reply.usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: reply.usage.input + reply.usage.output,
    }),
  })
  return events.map((event, sequence_number) => eventFrame(event.type as string, { ...event, sequence_number }))
}

/**
 * Reasoning items, refused as OpenAI refuses them: one with encrypted content
 * it cannot read is a 400 `invalid_encrypted_content`; one without is looked up
 * by id, and a server that keeps nothing (`store: false`) answers 404.
 */
const replayed = (body: unknown): ReadonlyArray<Replayed> =>
  objectsOf(body, "input").flatMap((item): ReadonlyArray<Replayed> => {
    const id = item?.["type"] === "reasoning" ? stringField(item, "id") : undefined
    if (id === undefined) return []
    const encrypted = stringField(item, "encrypted_content")
    const error = encrypted === undefined
      ? {
        message: `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. ` +
          "Try again with `store` set to true, or remove this item from your input.",
        type: "invalid_request_error",
        param: "input",
        code: null,
      }
      : {
        message: `The encrypted content for item ${id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
        type: "invalid_request_error",
        param: null,
        code: "invalid_encrypted_content",
      }
    return [{
      values: encrypted === undefined ? [id] : [id, encrypted],
      refusal: { status: encrypted === undefined ? 404 : 400, body: { error } },
    }]
  })

export const format: WireFormat = {
  api: "openai-responses",
  matches: (path) => path.endsWith("/responses"),
  modelOf: (_path, body) => modelField(body),
  streamHeaders: (context) => ({ "x-request-id": `req_${hex(`${context.seed}/request`, 32)}` }),
  render,
  error: (reply: HttpErrorReply, context) => openAiErrorResponse(reply, context, "input"),
  replayed,
  // OpenAI's text names neither count.
  overflow: () => ({ status: 400, kind: "context-overflow" }),
}
