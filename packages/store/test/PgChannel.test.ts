// The notification channel of a PostgreSQL schema: its name when that is a
// plain identifier short enough, else a digest of it; always a legal channel.
import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { channelOf } from "../src/internal/PgFollow.js"

describe("channelOf", () => {
  it("names a plain schema in the channel, and any other by its MD5, within 63 bytes", () => {
    expect(channelOf("public")).toBe("turnlog_events_public")
    expect(channelOf("team_7")).toBe("turnlog_events_team_7")
    const md5 = (text: string) => createHash("md5").update(text).digest("hex")
    expect(channelOf("Mixed Case")).toBe(`turnlog_events_${md5("Mixed Case")}`)
    const long = "a".repeat(63)
    expect(channelOf(long)).toBe(`turnlog_events_${md5(long)}`)
    for (const schema of ["public", "Mixed Case", long, "a".repeat(48)]) expect(Buffer.byteLength(channelOf(schema))).toBeLessThanOrEqual(63)
  })
})
