import { describe, expect, it } from "vitest";
import { operations } from "../../contract/operations.ts";
import { Router } from "./router.ts";

const router = new Router(operations);
const A = "6f1c2a9e-3b7d-4e8a-9c21-5d4b7a10e2f3";

describe("Router (built from openapi.json)", () => {
  it("serves every /api/v1 operation under /v1 too", () => {
    for (const prefix of ["/api/v1", "/v1"]) {
      const m = router.match("GET", `${prefix}/audiences/${A}`);
      expect(m.kind === "found" && m.op.operationId).toBe("getAudience");
      expect(m.kind === "found" && m.prefix).toBe(prefix);
    }
  });

  it("prefers a literal segment over a parameter", () => {
    const m = router.match("POST", `/api/v1/audiences/${A}/formations/preview`);
    expect(m.kind === "found" && m.op.operationId).toBe("previewFormation");
    const g = router.match("GET", `/api/v1/audiences/${A}/formations/${A}`);
    expect(g.kind === "found" && g.op.operationId).toBe("getFormation");
    expect(g.kind === "found" && g.params).toEqual({ audienceId: A, formationId: A });
  });

  it("distinguishes an unknown path from a known path with another method", () => {
    expect(router.match("GET", "/api/v1/nope").kind).toBe("not-found");
    const m = router.match("PATCH", `/api/v1/audiences/${A}`);
    expect(m.kind).toBe("method-not-allowed");
    expect(m.kind === "method-not-allowed" && [...m.allowed].sort()).toEqual(["DELETE", "GET", "PUT"]);
  });

  it("serves ACP under /api/acp only and the document at the root", () => {
    expect(router.match("POST", "/api/acp/checkout_sessions").kind).toBe("found");
    expect(router.match("POST", "/api/v1/checkout_sessions").kind).toBe("not-found");
    const doc = router.match("GET", "/_openapi.json");
    expect(doc.kind === "found" && doc.op.operationId).toBe("getOpenApiDocument");
  });

  it("matches an empty ID segment (so the handler can say the ID is required) and decodes escapes", () => {
    const m = router.match("DELETE", "/api/v1/api-keys/");
    expect(m.kind === "found" && m.params.keyId).toBe("");
    const e = router.match("GET", "/api/v1/audiences/%E0%A4%A");
    expect(e.kind === "found" && e.params.audienceId).toBe("%E0%A4%A");
  });

  it("keeps a path's match for the next request, read-only, and stays right past what it keeps", () => {
    const r = new Router(operations);
    const first = r.match("GET", `/api/v1/audiences/${A}`);
    expect(r.match("GET", `/api/v1/audiences/${A}`)).toBe(first);
    expect(Object.isFrozen(first) && first.kind === "found" && Object.isFrozen(first.params)).toBe(true);
    expect(r.match("DELETE", `/api/v1/audiences/${A}`)).toMatchObject({ kind: "found" });
    for (let i = 0; i < 3000; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      const m = r.match("GET", `/api/v1/audiences/${id}`);
      expect(m.kind === "found" && m.params.audienceId).toBe(id);
    }
    const again = r.match("GET", `/api/v1/audiences/${A}`);
    expect(again.kind === "found" && again.params).toEqual({ audienceId: A });
  });
});
