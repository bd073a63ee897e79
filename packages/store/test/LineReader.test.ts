// The chunked line reader must give the same lines as splitting the whole file,
// whatever the chunk size: characters split across chunks, lines longer than
// the buffer, invalid UTF-8, a last line without its newline — and the byte
// offset of any line.
import { describe, expect, it } from "@effect/vitest"
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FastCheck as fc } from "effect"
import { nodeIo } from "../src/internal/FileIo.js"
import { LineReader } from "../src/internal/LineReader.js"

interface Line {
  readonly text: string
  readonly start: number
  readonly complete: boolean
  readonly valid: boolean
}

const readAll = (bytes: Buffer, chunkSize: number): Array<Line> => {
  const dir = mkdtempSync(join(tmpdir(), "turnlog-lines-"))
  const file = join(dir, "log")
  writeFileSync(file, bytes)
  const fd = openSync(file, "r")
  try {
    const reader = new LineReader(nodeIo, fd, chunkSize)
    const lines: Array<Line> = []
    for (let text = reader.next(); text !== undefined; text = reader.next()) {
      expect(reader.lineNumber).toBe(lines.length + 1)
      lines.push({ text, start: reader.lineStart(), complete: reader.complete, valid: reader.validUtf8 })
    }
    return lines
  } finally {
    closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  }
}

/** What the reader must return: split on newline bytes. */
const expected = (bytes: Buffer): Array<Line> => {
  const lines: Array<Line> = []
  let start = 0
  for (;;) {
    const end = bytes.indexOf(10, start)
    const slice = bytes.subarray(start, end < 0 ? bytes.length : end)
    if (end < 0 && slice.length === 0) return lines
    const text = slice.toString("utf8")
    lines.push({ text, start, complete: end >= 0, valid: Buffer.from(text).equals(slice) })
    if (end < 0) return lines
    start = end + 1
  }
}

const piece = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constant("\n"),
  fc.constant("é😀→"),
  fc.constant("x".repeat(50)),
)
const content = fc.tuple(fc.array(piece, { maxLength: 30 }), fc.option(fc.uint8Array({ minLength: 1, maxLength: 4 }), { nil: undefined }))
  .map(([pieces, junk]) => {
    const text = Buffer.from(pieces.join(""))
    return junk === undefined ? text : Buffer.concat([text, Buffer.from(junk), Buffer.from("tail\nmore")])
  })

describe("LineReader", () => {
  it("reads the lines a whole-file split gives, with their byte offsets, at any chunk size", () => {
    fc.assert(
      fc.property(content, fc.integer({ min: 1, max: 64 }), (bytes, chunkSize) => {
        expect(readAll(bytes, chunkSize)).toStrictEqual(expected(bytes))
      }),
      { numRuns: 300 },
    )
  })

  it("marks a last line without newline as incomplete and an invalid byte sequence as invalid", () => {
    const bytes = Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('{"b"')])
    expect(readAll(bytes, 4)).toStrictEqual([
      { text: '{"a":1}', start: 0, complete: true, valid: true },
      { text: "\ufffd\ufffd", start: 8, complete: true, valid: false },
      { text: '{"b"', start: 11, complete: false, valid: true },
    ])
  })
})
