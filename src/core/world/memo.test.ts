import { describe, expect, it } from "vitest";
import { StateMemo } from "./memo.ts";

describe("StateMemo", () => {
  it("derives once per state version and again after a touch", () => {
    const memo = new StateMemo();
    let derived = 0;
    const derive = () => ++derived;
    expect(memo.get("k", derive)).toBe(1);
    expect(memo.get("k", derive)).toBe(1);
    memo.touch();
    expect(memo.peek("k")).toBeUndefined();
    expect(memo.get("k", derive)).toBe(2);
  });

  it("drops a value derived from a state that changed while it was being derived", () => {
    const memo = new StateMemo();
    const version = memo.version;
    memo.touch();
    memo.set("k", "stale", version);
    expect(memo.peek("k")).toBeUndefined();
    memo.set("k", "fresh", memo.version);
    expect(memo.peek("k")).toBe("fresh");
  });

  it("stays bounded however many keys are asked for, keeping what is used all along", () => {
    const memo = new StateMemo();
    memo.get("index", () => "shared");
    for (let i = 0; i < 10_000; i++) {
      memo.get(`k${i}`, () => i);
      expect(memo.get("index", () => "derived again")).toBe("shared");
    }
    const kept = Array.from({ length: 10_000 }, (_, i) => memo.peek(`k${i}`)).filter((v) => v !== undefined);
    expect(kept).toHaveLength(255);
    expect(memo.peek("k9999")).toBe(9999);
    expect(memo.peek("k0")).toBeUndefined();
  });
});
