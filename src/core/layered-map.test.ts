import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LayeredMap } from "./layered-map.ts";

type Op = { op: "set"; key: string; value: number } | { op: "delete"; key: string } | { op: "clear" };

const key: fc.Arbitrary<string> = fc.constantFrom("a", "b", "c", "d", "e", "f");
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("set" as const), key, value: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("delete" as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("clear" as const) }) },
);

describe("LayeredMap", () => {
  it("behaves as a Map with the same entries would, order included, and never changes its base", () => {
    fc.assert(
      fc.property(fc.uniqueArray(key), fc.array(op, { maxLength: 40 }), (baseKeys, ops) => {
        const base = new Map<string, number>(baseKeys.map((k, i) => [k, i]));
        const frozen = [...base];
        const model = new Map(base);
        const layered = new LayeredMap(base);
        for (const o of ops) {
          if (o.op === "set") {
            model.set(o.key, o.value);
            expect(layered.set(o.key, o.value)).toBe(layered);
          } else if (o.op === "delete") {
            expect(layered.delete(o.key)).toBe(model.delete(o.key));
          } else {
            model.clear();
            layered.clear();
          }
          expect([...layered]).toEqual([...model]);
          expect([...layered.keys()]).toEqual([...model.keys()]);
          expect([...layered.values()]).toEqual([...model.values()]);
          expect(layered.size).toBe(model.size);
          for (const k of ["a", "b", "c", "d", "e", "f"]) {
            expect(layered.get(k)).toBe(model.get(k));
            expect(layered.has(k)).toBe(model.has(k));
          }
        }
        const seen: [string, number][] = [];
        layered.forEach((v, k, m) => {
          expect(m).toBe(layered);
          seen.push([k, v]);
        });
        expect(seen).toEqual([...model]);
        expect([...base]).toEqual(frozen);
      }),
      { numRuns: 500 },
    );
  });

  it("is a Map to whoever asks (the snapshot and the copy of a world check that)", () => {
    expect(new LayeredMap(new Map()) instanceof Map).toBe(true);
  });

  it("with adopt: hands out copies of shared values, kept on first read, and never changes its base", () => {
    type Box = { n: number };
    type AdoptOp = Op | { op: "mutate"; key: string; value: number } | { op: "read"; key: string };
    const adoptOp: fc.Arbitrary<AdoptOp> = fc.oneof(
      op,
      fc.record({ op: fc.constant("mutate" as const), key, value: fc.integer() }),
      fc.record({ op: fc.constant("read" as const), key }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(key), fc.array(adoptOp, { maxLength: 40 }), (baseKeys, ops) => {
        const base = new Map<string, Box>(baseKeys.map((k, i) => [k, { n: i }]));
        const before = JSON.stringify([...base]);
        // The model holds its own copies from the start; the layered map makes them as they are read.
        const model = new Map([...base].map(([k, v]) => [k, { ...v }]));
        const copies: Box[] = [];
        const layered = new LayeredMap(base, (v) => {
          const c = { ...v };
          copies.push(c);
          return c;
        });
        for (const o of ops) {
          if (o.op === "set") {
            model.set(o.key, { n: o.value });
            layered.set(o.key, { n: o.value });
          } else if (o.op === "delete") {
            expect(layered.delete(o.key)).toBe(model.delete(o.key));
          } else if (o.op === "clear") {
            model.clear();
            layered.clear();
          } else if (o.op === "mutate") {
            const mine = layered.get(o.key);
            const theirs = model.get(o.key);
            expect(mine).toEqual(theirs);
            if (mine && theirs) {
              mine.n = o.value;
              theirs.n = o.value;
            }
          } else {
            const first = layered.get(o.key);
            expect(layered.get(o.key)).toBe(first);
          }
          expect(layered.size).toBe(model.size);
          for (const k of ["a", "b", "c", "d", "e", "f"]) expect(layered.has(k)).toBe(model.has(k));
        }
        expect([...layered]).toEqual([...model]);
        // What iteration hands out is what get hands out, and none of it is a shared value.
        for (const [k, v] of layered) {
          expect(layered.get(k)).toBe(v);
          expect([...base.values()]).not.toContain(v);
        }
        expect([...layered.madeEntries()]).toEqual([...model]);
        expect(JSON.stringify([...base])).toBe(before);
        expect(copies.length).toBeLessThanOrEqual(base.size);
      }),
      { numRuns: 500 },
    );
  });
});
