import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bearerKey, sha256Hex } from "./auth.ts";

describe("sha256Hex", () => {
  it("is SHA-256 as lowercase hex: the standard's vectors, and node:crypto's for any text", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
      }),
    );
  });
});

describe("bearerKey", () => {
  it("reads a service key from `Bearer <key>` and nothing else", () => {
    expect(bearerKey("Bearer service_abc")).toBe("service_abc");
    expect(bearerKey("bearer \tservice_abc ")).toBe("service_abc");
    for (const header of [
      null,
      "",
      "Bearer",
      "Bearer service_",
      "Basic service_abc",
      "Bearer other_abc",
      "Bearer a b",
    ])
      expect(bearerKey(header)).toBeNull();
  });
});
