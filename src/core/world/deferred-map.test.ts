import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeferredMap, madeEntries } from "./deferred-map.ts";
import { LayeredMap } from "./layered-map.ts";

type Box = { n: number };
type Op =
  | { op: "defer"; key: string; value: number }
  | { op: "set"; key: string; value: number }
  | { op: "get"; key: string }
  | { op: "delete"; key: string }
  | { op: "clear" };

const KEYS = ["a", "b", "c", "d", "e"];
const key = fc.constantFrom(...KEYS);
const value = fc.integer();
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("defer" as const), key, value }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("set" as const), key, value }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("get" as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("clear" as const) }) },
);

/** A DeferredMap and the Map that holds what it would hold with every value made at once. */
function apply(ops: Op[]): {
  deferred: DeferredMap<string, Box>;
  model: Map<string, Box>;
  made: string[];
} {
  const deferred = new DeferredMap<string, Box>();
  const model = new Map<string, Box>();
  const made: string[] = [];
  for (const o of ops) {
    if (o.op === "defer") {
      const box = { n: o.value };
      deferred.deferAll([o.key], () => {
        made.push(o.key);
        return box;
      });
      model.set(o.key, box);
    } else if (o.op === "set") {
      const box = { n: o.value };
      expect(deferred.set(o.key, box)).toBe(deferred);
      model.set(o.key, box);
    } else if (o.op === "get") {
      expect(deferred.get(o.key)).toBe(model.get(o.key));
    } else if (o.op === "delete") {
      expect(deferred.delete(o.key)).toBe(model.delete(o.key));
    } else {
      deferred.clear();
      model.clear();
    }
    expect(deferred.size).toBe(model.size);
    for (const k of KEYS) expect(deferred.has(k)).toBe(model.has(k));
  }
  return { deferred, model, made };
}

describe("DeferredMap", () => {
  it("behaves as a Map holding every value made at once would, order included", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const { deferred, model } = apply(ops);
        // Before anything below makes them: madeEntries holds exactly the values not deferred.
        const made = new Map(deferred.madeEntries());
        for (const [k, v] of model)
          if (deferred.isDeferred(k)) expect(made.has(k)).toBe(false);
          else expect(made.get(k)).toBe(v);
        expect(made.size).toBe(model.size - deferred.deferred);
        expect([...deferred.keys()]).toEqual([...model.keys()]);
        expect([...deferred]).toEqual([...model]);
        expect([...deferred.values()]).toEqual([...model.values()]);
        const seen: [string, Box][] = [];
        deferred.forEach((v, k, m) => {
          expect(m).toBe(deferred);
          seen.push([k, v]);
        });
        expect(seen).toEqual([...model]);
        expect(deferred.deferred).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it("makes a value when it is first read, once, and not when only its key is", () => {
    const made: string[] = [];
    const map = new DeferredMap<string, { n: number }>();
    map.deferAll(["x"], () => {
      made.push("x");
      return { n: 1 };
    });
    map.set("y", { n: 2 });
    expect([...map.keys()]).toEqual(["x", "y"]);
    expect(map.has("x")).toBe(true);
    expect(map.size).toBe(2);
    expect(made).toEqual([]);
    expect([...madeEntries(map)]).toEqual([["y", { n: 2 }]]);
    const first = map.get("x");
    expect(map.get("x")).toBe(first);
    expect(made).toEqual(["x"]);
    expect(map.deferred).toBe(0);
    expect([...madeEntries(map)].map(([k]) => k).sort()).toEqual(["x", "y"]);
  });

  it("keeps a deferred entry whose maker threw, to be tried again", () => {
    let fail = true;
    const map = new DeferredMap<string, Box>();
    map.deferAll(["x"], () => {
      if (fail) throw new Error("not yet");
      return { n: 7 };
    });
    expect(() => map.get("x")).toThrow("not yet");
    expect(map.deferred).toBe(1);
    fail = false;
    expect(map.get("x")).toEqual({ n: 7 });
    expect(map.deferred).toBe(0);
  });

  it("defers a batch with one maker, called with each key's index", () => {
    const map = new DeferredMap<string, { i: number }>();
    map.set("z", { i: -1 });
    map.deferAll(["a", "b", "c"], (i) => ({ i }));
    expect(map.deferred).toBe(3);
    expect(map.get("c")).toEqual({ i: 2 });
    expect([...map]).toEqual([
      ["z", { i: -1 }],
      ["a", { i: 0 }],
      ["b", { i: 1 }],
      ["c", { i: 2 }],
    ]);
    expect(map.deferred).toBe(0);
  });

  it("is a Map to whoever asks (the snapshot, the digest and the copy of a world check that)", () => {
    expect(new DeferredMap() instanceof Map).toBe(true);
  });

  it("under a LayeredMap: reads make shared values, madeEntries lists only what was made or set here", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), fc.array(op, { maxLength: 20 }), (baseOps, ownOps) => {
        const { deferred, model } = apply(baseOps.filter((o) => o.op !== "get"));
        const pendingBefore = deferred.deferred;
        const layered = new LayeredMap<string, Box>(deferred);
        const layeredModel = new Map(model);
        for (const o of ownOps) {
          if (o.op === "set" || o.op === "defer") {
            const box = { n: o.value };
            layered.set(o.key, box);
            layeredModel.set(o.key, box);
          } else if (o.op === "delete") {
            expect(layered.delete(o.key)).toBe(layeredModel.delete(o.key));
          } else if (o.op === "clear") {
            layered.clear();
            layeredModel.clear();
          }
        }
        // Nothing above read a shared value: madeEntries is the model's entries less those still deferred.
        const made = new Map(layered.madeEntries());
        for (const [k, v] of layeredModel)
          if (made.has(k)) expect(made.get(k)).toBe(v);
          else expect(deferred.deferred).toBeGreaterThan(0);
        expect(deferred.deferred).toBe(pendingBefore);
        expect([...layered]).toEqual([...layeredModel]);
        expect(new Map(layered.madeEntries())).toEqual(layeredModel);
      }),
      { numRuns: 300 },
    );
  });

  it("as its layout (JSON), comes back with the same entries, in order, and the same ones still deferred", () => {
    type LayoutOp =
      | { op: "defer"; keys: string[]; base: number }
      | { op: "set"; key: string; value: number }
      | { op: "get"; key: string }
      | { op: "delete"; key: string };
    const layoutOp: fc.Arbitrary<LayoutOp> = fc.oneof(
      fc.record({
        op: fc.constant("defer" as const),
        keys: fc.uniqueArray(key, { maxLength: 4 }),
        base: value,
      }),
      fc.record({ op: fc.constant("set" as const), key, value }),
      fc.record({ op: fc.constant("get" as const), key }),
      fc.record({ op: fc.constant("delete" as const), key }),
    );
    // A batch's recipe is its base; its maker makes base + index, as the original's did.
    const makerOf = (recipe: unknown) => (i: number) => ({ n: (recipe as { base: number }).base + i });
    fc.assert(
      fc.property(fc.array(layoutOp, { maxLength: 30 }), (ops) => {
        const map = new DeferredMap<string, Box>();
        for (const o of ops) {
          if (o.op === "defer") map.deferAll(o.keys, makerOf({ base: o.base }), { base: o.base });
          else if (o.op === "set") map.set(o.key, { n: o.value });
          else if (o.op === "get") map.get(o.key);
          else map.delete(o.key);
        }
        const layout = map.layout();
        if (layout === null) throw new Error("every batch had a recipe");
        const back = DeferredMap.fromLayout<string, Box>(JSON.parse(JSON.stringify(layout)), makerOf);
        // Each read, as the first one of a map just brought back, fills it in (checked on fresh ones).
        const fresh = () => DeferredMap.fromLayout<string, Box>(JSON.parse(JSON.stringify(layout)), makerOf);
        expect(back.deferred).toBe(map.deferred);
        expect([...madeEntries(back)].sort()).toEqual([...madeEntries(map)].sort());
        const recipes = KEYS.map((k) => map.recipeOf(k));
        for (const k of KEYS) expect(back.isDeferred(k)).toBe(map.isDeferred(k));
        expect(KEYS.map((k) => fresh().recipeOf(k))).toEqual(recipes);
        expect([...back]).toEqual([...map]);
        expect(fresh().size).toBe(map.size);
        expect([...fresh().keys()]).toEqual([...map.keys()]);
        expect([...fresh().values()]).toEqual([...map.values()]);
        for (const k of KEYS) {
          expect(fresh().has(k)).toBe(map.has(k));
          expect(fresh().get(k)).toEqual(map.get(k));
          const changed = fresh();
          changed.set(k, { n: -1 });
          expect([...changed]).toEqual([...new Map(map).set(k, { n: -1 })]);
          const removed = fresh();
          const model = new Map(map);
          expect(removed.delete(k)).toBe(model.delete(k));
          expect([...removed]).toEqual([...model]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("has no layout when a batch was deferred without a recipe; refuses a run outside its batch, a key twice", () => {
    const map = new DeferredMap<string, Box>().deferAll(["a"], () => ({ n: 1 }));
    expect(map.layout()).toBeNull();
    const runaway = { batches: [{ keys: ["a"], recipe: 1 }], entries: [{ batch: 0, from: 0, to: 2 }] };
    expect(() => DeferredMap.fromLayout(runaway, () => () => ({ n: 1 }))).toThrow(RangeError);
    const twice = {
      batches: [{ keys: ["a"], recipe: 1 }],
      entries: [["a", { n: 0 }], { batch: 0, from: 0, to: 1 }],
    };
    // Found out when the map is filled in, at its first read, and at every read after.
    const refused = DeferredMap.fromLayout<string, Box>(twice as never, () => () => ({ n: 1 }));
    expect(() => refused.size).toThrow("twice");
    expect(() => refused.get("a")).toThrow("twice");
  });
});
