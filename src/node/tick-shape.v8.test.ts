// What V8 does to Node's tick queue that keepTickShape prevents (src/node/tick-shape.ts says why), shown in a
// process of its own: a full collection while no tick is queued, before `nextTick` is optimized, leaves the keys
// of its entries "megamorphic" for good. If this Node no longer does that, the first test fails: the keeping
// can then go.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("./tick-shape.ts", import.meta.url));

/** The states of the literal's keys in `nextTick`'s feedback after an idle full collection. */
function keyStates(keep: boolean): string[] {
  const script = `
    import { keepTickShape } from ${JSON.stringify(MODULE)};
    const nextTick = process.nextTick;
    const noop = () => {};
    if (${keep}) keepTickShape();
    for (let i = 0; i < 20; i++) nextTick(noop);
    await new Promise((resolve) => setTimeout(resolve, 20));
    globalThis.gc();
    globalThis.gc();
    for (let i = 0; i < 20; i++) nextTick(noop);
    await new Promise((resolve) => setTimeout(resolve, 20));
    new Function("f", "%DebugPrint(f)")(nextTick);
  `;
  const run = spawnSync(
    process.execPath,
    ["--expose-gc", "--allow-natives-syntax", "--input-type=module", "--eval", script],
    { encoding: "utf8" },
  );
  expect(run.status, run.stderr).toBe(0);
  return [...run.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1] ?? "");
}

describe("Node's tick entries under V8", () => {
  it("lose their shapes to a full collection while none is queued", () => {
    const states = keyStates(false);
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(states).toContain("MEGAMORPHIC");
  });

  it("keep them while one entry is kept alive", () => {
    const states = keyStates(true);
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(states.every((state) => state === "MONOMORPHIC")).toBe(true);
  });
});
