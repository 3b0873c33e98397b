import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EncodedJson, encodedBy, encodeJson } from "./encoded-json.ts";

const text = (out: string | Uint8Array) => (typeof out === "string" ? out : new TextDecoder().decode(out));

describe("EncodedJson", () => {
  it("lays encoded fields and arrays in place among plain ones, as JSON.stringify writes the value", () => {
    const minds = [
      { id: "m1", name: "Åsa “quoted”" },
      { id: "m2", bio: "\u2028 line \u0000" },
    ];
    const view = {
      id: "a",
      name: "x",
      minds: minds.map((m) => EncodedJson.of(m)),
      one: EncodedJson.of({ n: 1 }),
      skipped: undefined,
      tail: [1, 2],
    };
    const out = encodeJson(EncodedJson.object({ data: EncodedJson.object(view) }));
    expect(out).toBeInstanceOf(Uint8Array);
    expect(text(out)).toBe(
      JSON.stringify({ data: { id: "a", name: "x", minds, one: { n: 1 }, tail: [1, 2] } }),
    );
  });

  it("is the plain text when nothing is encoded, and stands for its value when stringified elsewhere", () => {
    expect(encodeJson({ a: [1, "b"] })).toBe('{"a":[1,"b"]}');
    expect(JSON.stringify({ v: EncodedJson.of({ a: 1 }) })).toBe('{"v":{"a":1}}');
    expect(text(EncodedJson.object({}).bytes)).toBe("{}");
    expect(text(EncodedJson.object({ a: EncodedJson.of(null) }).bytes)).toBe('{"a":null}');
    expect(text(EncodedJson.array([]).bytes)).toBe("[]");
  });

  it("agrees with JSON.stringify for any object of plain and encoded fields (fast-check)", () => {
    // Any code points, lone surrogates included: text runs are encoded straight into the joined answer.
    const str = fc.string({ unit: "binary" });
    const leaf = fc.oneof(str, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
    // Two levels deep: below a field, a tree is written by JSON.stringify itself, so deeper ones test
    // nothing more of ours and only take time to generate (over 4 s for 500 runs unbounded).
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: "small", maxDepth: 2 },
        leaf,
        fc.array(tie("tree")),
        fc.dictionary(str, tie("tree")),
      ),
    }));
    // Each field plain, encoded, or an array of encoded items; keys include __proto__ and the empty one.
    const field = fc.oneof(
      tree.map((v) => ({ plain: v, as: v as unknown })),
      tree.map((v) => ({ plain: v, as: EncodedJson.of(v) as unknown })),
      fc
        .array(tree, { minLength: 1 })
        .map((vs) => ({ plain: vs as unknown, as: vs.map((v) => EncodedJson.of(v)) as unknown })),
    );
    const key = fc.oneof(str, fc.constantFrom("__proto__", "", "constructor"));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, field), { selector: ([k]) => k }), (entries) => {
        const plain: Record<string, unknown> = {};
        const mixed: Record<string, unknown> = {};
        for (const [k, f] of entries) {
          Object.defineProperty(plain, k, {
            value: f.plain,
            enumerable: true,
            writable: true,
            configurable: true,
          });
          Object.defineProperty(mixed, k, {
            value: f.as,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        const encoded = EncodedJson.object(mixed);
        expect(text(encoded.bytes)).toBe(JSON.stringify(plain));
        expect(text(EncodedJson.object({ all: encoded.joined() }).bytes)).toBe(
          JSON.stringify({ all: plain }),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("encodedBy encodes an object's view once, and a replacing object's anew", () => {
    let views = 0;
    const by = encodedBy((r: { name: string }) => {
      views++;
      return { name: r.name };
    });
    const record = { name: "a" };
    expect(by.of(record)).toBe(by.of(record));
    const replaced = { ...record, name: "b" };
    expect(text(by.of(replaced).bytes)).toBe('{"name":"b"}');
    expect(views).toBe(2);
  });
});
