import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { SessionId } from "@turnlog/protocol"
import { SessionList } from "@turnlog/acp"

const summary = (
  n: number,
  cwd: string,
  title = `task ${n}`,
  status: "idle" | "running" | "interrupted" = "idle",
) => ({
  id: SessionId.make(`s-${n}`),
  cwd,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: `2025-01-0${n}T00:00:00.000Z`,
  turns: n * 2,
  title,
  status,
})

describe("session/list pages", () => {
  const all = [
    summary(5, "/a", "task 5", "running"),
    summary(4, "/b"),
    summary(3, "/a", "", "interrupted"),
    summary(2, "/a"),
    summary(1, "/a"),
  ]

  it("filter by cwd, keep the store's order, and hand out a cursor until the last page", () => {
    const first = Either.getOrThrow(SessionList.page(all, { cwd: "/a" }, 2))
    expect(first.sessions).toEqual([
      {
        sessionId: "s-5",
        cwd: "/a",
        title: "task 5",
        updatedAt: "2025-01-05T00:00:00.000Z",
        _meta: { turnlog: { turns: 10, status: "running" } },
      },
      {
        sessionId: "s-3",
        cwd: "/a",
        updatedAt: "2025-01-03T00:00:00.000Z",
        _meta: { turnlog: { turns: 6, status: "interrupted" } },
      },
    ])
    const second = Either.getOrThrow(SessionList.page(all, { cwd: "/a", cursor: first.nextCursor! }, 2))
    expect(second.sessions.map((s) => s.sessionId)).toEqual(["s-2", "s-1"])
    expect(second.nextCursor).toBeUndefined()
    expect(Either.getOrThrow(SessionList.page(all, {}, 10)).sessions).toHaveLength(5)
  })

  it("refuses a cursor it did not give", () => {
    expect(SessionList.page(all, { cursor: "abc" })).toEqual(Either.left(`cursor "abc" is not one this agent gave`))
  })
})
