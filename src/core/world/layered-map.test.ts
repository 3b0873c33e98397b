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
  it("says what it holds beyond its base: its own entries and the shared keys it hid", () => {
    const base = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    const layered = new LayeredMap(base);
    expect(layered.layer()).toEqual({ base, own: [], hidden: [] });
    layered.set("a", 10);
    layered.set("c", 3);
    layered.delete("b");
    const { base: under, own, hidden } = layered.layer();
    expect(under).toBe(base);
    expect(own).toEqual([
      ["a", 10],
      ["c", 3],
    ]);
    expect(hidden).toEqual(["b"]);
  });
});
