import { describe, expect, it } from "vitest";
import { KeptMap } from "./kept-map.ts";

describe("KeptMap", () => {
  it("finds what it kept, and starts over rather than grow past its bound", () => {
    const kept = new KeptMap<string, number>(3);
    expect(kept.keep("a", 1)).toBe(1);
    kept.keep("b", 2);
    kept.keep("c", 3);
    expect([kept.get("a"), kept.get("b"), kept.get("c")]).toEqual([1, 2, 3]);
    kept.keep("d", 4);
    expect([kept.get("a"), kept.get("c"), kept.get("d")]).toEqual([undefined, undefined, 4]);
  });
});
