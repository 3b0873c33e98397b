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

const HOLD = 20;
const held = () => new Promise((r) => setTimeout(r, HOLD + 10));

describe("the request log", () => {
  it("holds lines for a moment and writes them in one write, in order", async () => {
    const writes: string[] = [];
    const log = requestLogger(
      "pretty",
      { write: (t) => writes.push(Buffer.from(t).toString()) },
      () => {},
      HOLD,
    );
    log(entry("/api/v1/auth/me"));
    await new Promise((r) => setImmediate(r));
    log(entry("/api/v1/audiences", { status: 404, sandbox: "sb1" }));
    expect(writes).toEqual([]);
    await held();
    expect(writes).toHaveLength(1);
    const lines = (writes[0] ?? "").split("\n");
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/api\/v1\/auth\/me 200 1ms$/);
    expect(lines[1]).toMatch(/GET \/api\/v1\/audiences 404 1ms \[sandbox sb1\]$/);
    log(entry("/later"));
    await held();
    expect(writes).toHaveLength(2);
  });

  it("writes at once when much is held, without waiting for the moment to pass", () => {
    const writes: string[] = [];
    let atExit = () => {};
    const log = requestLogger(
      "json",
      { write: (t) => writes.push(Buffer.from(t).toString()) },
      (f) => (atExit = f),
      60_000,
    );
    const long = `/api/v1/${"x".repeat(1000)}`;
    for (let i = 0; i < 40; i++) log(entry(long));
    const lines = () => writes.join("").split("\n").filter(Boolean).length;
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(lines()).toBeLessThan(40);
    for (const text of writes) expect(text.endsWith("\n")).toBe(true);
    const huge = `/api/v1/${"y".repeat(20_000)}`;
    log(entry(huge));
    expect(lines()).toBe(41);
    expect(writes.at(-1)).toContain(huge);
    log(entry("/after"));
    atExit();
    expect(lines()).toBe(42);
    expect(writes.at(-1)).toContain("/after");
  });

  it("writes JSON lines, and what it holds when the process exits", () => {
    const writes: string[] = [];
    let atExit = () => {};
    const log = requestLogger("json", { write: (t) => writes.push(Buffer.from(t).toString()) }, (flush) => {
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
