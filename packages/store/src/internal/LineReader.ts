/**
 * Reads a file line by line in fixed-size chunks, so a large log is never held
 * as one string beside its lines and their objects. Each chunk is decoded up to
 * its last newline in one call (a newline byte never occurs inside a UTF-8
 * sequence, so no character is split); the byte offset of a line is computed
 * only when asked for — when a damaged tail has to be cut there.
 */
import { isAscii, isUtf8 } from "node:buffer"
import type { FileIo } from "./FileIo.js"

/**
 * Small chunks: each one's text is a young object that dies young. At 4 MB a
 * chunk's text went straight to the large-object space, fresh memory faulted
 * in for every chunk and freed only by a full collection (decoding a 32 MB
 * log took ~30× as long as at 64 KB).
 */
const CHUNK = 64 << 10

export class LineReader {
  private buffer: Buffer
  /** Undecoded bytes at the start of `buffer` (a line not yet ended). */
  private carried = 0
  /** File offset of `buffer[0]`. */
  private bufferStart = 0
  private atEof = false
  private text = ""
  private textStart = 0
  private cursor = 0
  private lineIndex = 0
  /** Lines of a chunk that is not valid UTF-8, decoded one by one. */
  private slow: Array<{ readonly text: string; readonly start: number; readonly valid: boolean }> | undefined
  private slowStart = 0

  /** 1-based number of the line last returned. */
  lineNumber = 0
  /** Whether the line last returned ended with a newline. */
  complete = true
  /** Whether the line last returned is valid UTF-8. */
  validUtf8 = true

  /** `start`: the file offset to read from (the start of a line); `firstLine`: that line's 1-based number. */
  constructor(private readonly io: FileIo, private readonly fd: number, chunkSize = CHUNK, start = 0, firstLine = 1) {
    this.buffer = Buffer.allocUnsafe(chunkSize)
    this.bufferStart = start
    this.lineNumber = firstLine - 1
  }

  /** The next line without its newline, or undefined at the end of the file. */
  next(): string | undefined {
    for (;;) {
      if (this.slow !== undefined) {
        const line = this.slow.shift()
        if (line !== undefined) {
          this.slowStart = line.start
          this.lineNumber++
          this.validUtf8 = line.valid
          return line.text
        }
        this.slow = undefined
      }
      const end = this.text.indexOf("\n", this.cursor)
      if (end >= 0) {
        this.lineIndex = this.cursor
        this.cursor = end + 1
        this.lineNumber++
        this.validUtf8 = true
        return this.text.slice(this.lineIndex, end)
      }
      if (this.atEof) return this.rest()
      this.fill()
    }
  }

  /** File offset just past the last newline read: once every line is read, where the complete lines end. */
  completeEnd(): number {
    return this.bufferStart
  }

  /** File offset of the first byte of the line last returned. */
  lineStart(): number {
    if (!this.complete || this.slowStart >= 0) return this.slowStart
    return this.textStart + Buffer.byteLength(this.text.slice(0, this.lineIndex))
  }

  private rest(): string | undefined {
    if (this.carried === 0) return undefined
    const bytes = this.buffer.subarray(0, this.carried)
    this.carried = 0
    this.complete = false
    this.slowStart = this.bufferStart
    this.validUtf8 = isUtf8(bytes)
    this.lineNumber++
    return bytes.toString("utf8")
  }

  private fill(): void {
    if (this.carried === this.buffer.length) {
      // One line longer than the buffer: grow it.
      const bigger = Buffer.allocUnsafe(this.buffer.length * 2)
      this.buffer.copy(bigger, 0, 0, this.carried)
      this.buffer = bigger
    }
    const read = this.io.readSync(this.fd, this.buffer, this.carried, this.buffer.length - this.carried, this.bufferStart + this.carried)
    if (read === 0) {
      this.atEof = true
      this.text = ""
      this.cursor = 0
      return
    }
    const filled = this.carried + read
    const last = this.buffer.lastIndexOf(10, filled - 1)
    if (last < 0) {
      this.carried = filled
      this.text = ""
      this.cursor = 0
      return
    }
    const lines = this.buffer.subarray(0, last + 1)
    this.slowStart = -1
    if (isAscii(lines)) {
      // The same text as UTF-8 decoding gives, without the decoder's work.
      this.text = lines.toString("latin1")
      this.textStart = this.bufferStart
    } else if (isUtf8(lines)) {
      this.text = lines.toString("utf8")
      this.textStart = this.bufferStart
    } else {
      this.text = ""
      this.slow = splitBytes(lines, this.bufferStart)
    }
    this.cursor = 0
    this.buffer.copy(this.buffer, 0, last + 1, filled)
    this.bufferStart += last + 1
    this.carried = filled - last - 1
  }
}

const splitBytes = (bytes: Buffer, offset: number) => {
  const out: Array<{ text: string; start: number; valid: boolean }> = []
  let start = 0
  for (;;) {
    const end = bytes.indexOf(10, start)
    if (end < 0) return out
    const line = bytes.subarray(start, end)
    out.push({ text: line.toString("utf8"), start: offset + start, valid: isUtf8(line) })
    start = end + 1
  }
}
