import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRng } from "./prng.ts";

describe("createRng", () => {
  it("repeats the same sequence for the same seed and differs for another", () => {
    const a = createRng(7);
    const b = createRng(7);
    const seqA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA);
    const c = createRng(8);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
  });

  it("makes RFC 4122 version-4 UUIDs", () => {
    const rng = createRng(1);
    for (let i = 0; i < 200; i++) {
      expect(rng.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it("draws a UUID as 32 hex digits of chars() with the version and variant set, and leaves the stream alike", () => {
    // The definition, written the slow way: a UUID is what these draws make, whatever the code that makes it.
    const reference = (rng: ReturnType<typeof createRng>): string => {
      const h = rng.chars(32, "0123456789abcdef").split("");
      h[12] = "4";
      h[16] = "0123456789abcdef"[(Number.parseInt(h[16] as string, 16) & 0x3) | 0x8] as string;
      const s = h.join("");
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    };
    for (const seed of [0, 1, 42, 0xffffffff]) {
      const a = createRng(seed);
      const b = createRng(seed);
      for (let i = 0; i < 2000; i++) expect(a.uuid()).toBe(reference(b));
      expect(a.next()).toBe(b.next());
    }
  });

  it("forks stable streams that do not depend on draws made by the parent", () => {
    const a = createRng(3);
    const b = createRng(3);
    b.next();
    b.next();
    expect(a.fork("x").uuid()).toBe(b.fork("x").uuid());
    expect(a.fork("x").uuid()).not.toBe(a.fork("y").uuid());
  });

  it("keeps int() within its bounds and next() in [0, 1) (property, seed in the name: fc default)", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (seed, min, span) => {
          const rng = createRng(seed);
          const v = rng.int(min, min + span);
          const f = rng.next();
          return Number.isInteger(v) && v >= min && v <= min + span && f >= 0 && f < 1;
        },
      ),
    );
  });

  it("shuffles into a permutation and refuses to pick from nothing", () => {
    const rng = createRng(5);
    const items = Array.from({ length: 50 }, (_, i) => i);
    expect([...rng.shuffle(items)].sort((x, y) => x - y)).toEqual(items);
    expect(() => rng.pick([])).toThrow(RangeError);
  });
});
