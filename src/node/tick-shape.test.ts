import { describe, expect, it } from "vitest";
import { keepTickShape, keptTick } from "./tick-shape.ts";

describe("keepTickShape", () => {
  it("keeps one of Node's tick entries, with its symbol keys and callback", async () => {
    keepTickShape();
    await new Promise<void>((resolve) => process.nextTick(resolve));
    const kept = keptTick() as Record<string | symbol, unknown>;
    expect(kept).toBeTypeOf("object");
    expect(kept.callback).toBeTypeOf("function");
    expect(Object.getOwnPropertySymbols(kept).map(String)).toContain("Symbol(async_id_symbol)");
    const first = kept;
    keepTickShape();
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(keptTick()).toBe(first);
  });
});
