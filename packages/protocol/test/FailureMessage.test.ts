import { describe, expect, it } from "vitest"
import { FailureMessage } from "../src/index.js"

describe("a provider's failure message as it is shown", () => {
  it.each([
    [
      "Anthropic",
      '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}',
      "529 overloaded_error: Overloaded",
    ],
    [
      "OpenAI",
      '401 {"error":{"message":"Incorrect API key provided: sk-x***","type":"invalid_request_error","code":"invalid_api_key"}}',
      "401 invalid_request_error: Incorrect API key provided: sk-x***",
    ],
    [
      "Google, a list",
      '429: [{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}]',
      "429 RESOURCE_EXHAUSTED: Resource has been exhausted",
    ],
    ["a bare message", '500 {"message":"internal failure"}', "500 internal failure"],
    ["a kind the message already starts with", '400 {"error":{"type":"x","message":"x: bad"}}', "400 x: bad"],
  ])("%s: the status, the error's kind and its sentence", (_, message, shown) => {
    expect(FailureMessage.readable(message)).toBe(shown)
  })

  it.each([
    ["no status", "fetch failed: ECONNREFUSED"],
    ["a body that is not JSON", "502 <html>Bad gateway</html>"],
    ["JSON with no message", '500 {"error":{"type":"x"}}'],
    ["a torn body", '529 {"type":"error","error":{"type":"overloaded_error"'],
  ])("%s: shown as it came", (_, message) => {
    expect(FailureMessage.readable(message)).toBe(message)
  })
})
