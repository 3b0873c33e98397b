import { describe, expect, it } from "vitest";
import { ApiError } from "../errors.ts";
import { parseJson, readCapped } from "./request-body.ts";

function streamOf(chunks: Uint8Array[], onPull: () => void = () => {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      onPull();
      if (i < chunks.length) c.enqueue(chunks[i++] as Uint8Array);
      else c.close();
    },
  });
}

describe("readCapped", () => {
  it("stops reading past the cap and answers 413", async () => {
    let pulls = 0;
    const chunk = new Uint8Array(1024);
    const body = streamOf(
      Array.from({ length: 1000 }, () => chunk),
      () => pulls++,
    );
    const req = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    const err = await readCapped(req, 4096).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(413);
    expect(pulls).toBeLessThan(10);
  });

  it("refuses a declared Content-Length over the cap before reading", async () => {
    const req = new Request("http://x/", {
      method: "POST",
      body: "x".repeat(10),
      headers: { "content-length": "999999" },
    });
    await expect(readCapped(req, 100)).rejects.toMatchObject({ status: 413 });
  });

  it("treats an empty body as absent and rejects invalid UTF-8", async () => {
    expect(await readCapped(new Request("http://x/", { method: "POST", body: "" }), 100)).toEqual({
      present: false,
    });
    const bad = new Request("http://x/", { method: "POST", body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    await expect(readCapped(bad, 100)).rejects.toMatchObject({ status: 400, message: "Invalid JSON body" });
  });
});

describe("parseJson", () => {
  it("parses JSON and answers 400 Invalid JSON body otherwise", () => {
    expect(parseJson('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    for (const bad of ["{", "undefined", "{'a':1}", "[1,]"]) {
      expect(() => parseJson(bad)).toThrow(
        expect.objectContaining({ status: 400, message: "Invalid JSON body" }),
      );
    }
  });

  it("refuses nesting deeper than any real payload without overflowing the stack", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(() => parseJson(deep)).toThrow(expect.objectContaining({ status: 400 }));
    expect(parseJson(`${"[".repeat(60)}${"]".repeat(60)}`)).toBeDefined();
  });

  it("keeps __proto__ as a plain own key rather than changing prototypes", () => {
    const v = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(v, "__proto__")).toBe(true);
  });
});
