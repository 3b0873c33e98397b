import { describe, expect, it } from "vitest";
import { type LoggedEntry, requestLogger } from "./request-log.ts";

const entry = (path: string, extra: Partial<LoggedEntry> = {}): LoggedEntry =>
  ({
    at: "2026-01-01T00:00:00.000Z",
    method: "GET",
    path,
    status: 200,
    ms: 1,
    userId: "u1",
    ...extra,
  }) as LoggedEntry;

const nextTurn = () => new Promise((r) => setImmediate(r));

describe("the request log", () => {
  it("writes the lines of one turn of the event loop in one write, in order", async () => {
    const writes: string[] = [];
    const log = requestLogger("pretty", { write: (t) => writes.push(t) }, () => {});
    log(entry("/api/v1/auth/me"));
    log(entry("/api/v1/audiences", { status: 404, sandbox: "sb1" }));
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toHaveLength(1);
    const lines = (writes[0] ?? "").split("\n");
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/api\/v1\/auth\/me 200 1ms$/);
    expect(lines[1]).toMatch(/GET \/api\/v1\/audiences 404 1ms \[sandbox sb1\]$/);
    log(entry("/later"));
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it("writes JSON lines, and what it holds when the process exits", () => {
    const writes: string[] = [];
    let atExit = () => {};
    const log = requestLogger("json", { write: (t) => writes.push(t) }, (flush) => {
      atExit = flush;
    });
    log(entry("/api/v1/auth/me"));
    atExit();
    expect(JSON.parse(writes[0] ?? "")).toMatchObject({
      method: "GET",
      path: "/api/v1/auth/me",
      status: 200,
      userId: "u1",
    });
    atExit();
    expect(writes).toHaveLength(1);
  });
});
