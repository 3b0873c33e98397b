import { describe, expect, it } from "vitest";
import { harness } from "../../testing/harness.ts";
import { operations } from "../contract/operations.ts";
import { checkResponse } from "../contract/responses.ts";
import { prismBodyGenerator } from "./prefer-dynamic.ts";

const concrete = (path: string, prefix: string) =>
  `${prefix}${path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")}`;

describe("Prefer: dynamic=true with Prism's generator (Node host)", async () => {
  const opts = { generateBody: prismBodyGenerator(), rateLimitPerMinute: 1_000_000 };
  const a = await harness(opts);
  const b = await harness(opts);

  it("answers every JSON response of every operation with a contract-valid body", async () => {
    let generated = 0;
    let fellBack = 0;
    for (const op of operations.filter((o) => o.authenticated)) {
      for (const status of op.statuses) {
        const path = concrete(op.path, op.prefixes[0] as string);
        const r = await a.call(op.method, path, { headers: { prefer: `code=${status}, dynamic=true` } });
        expect(r.status).toBe(status);
        expect(checkResponse(op.operationId, r.status, r.headers, r.text)).toEqual([]);
        if (r.headers.get("preference-applied")?.includes("dynamic=true")) generated++;
        else if (r.headers.has("x-sim-prefer-fallback")) fellBack++;
      }
    }
    // Nearly everything is generated; the rest is the example, flagged (never an invalid body).
    expect(generated).toBeGreaterThan(100);
    expect(fellBack).toBeLessThan(generated / 10);
  });

  it("is repeatable: same seed and request sequence, same body; not just the example", async () => {
    const ask = (h: typeof a) =>
      h.call("GET", "/api/v1/api-keys", { headers: { prefer: "dynamic=true" } }).then((r) => r.text);
    const one = await ask(a);
    const [x, y] = [await ask(b), await ask(b)];
    expect(x).not.toBe(y);
    const c = await harness(opts);
    expect(await ask(c)).toBe(x);
    const example = await a.call("GET", "/api/v1/api-keys", { headers: { prefer: "code=200" } });
    expect(one).not.toBe(example.text);
  });
});
