/**
 * The kit's own operation matching (lib/http/match.ts) agrees with the simulator's router on every path the
 * contract has, under every prefix, for every method; and says what the description says where it matters:
 * a concrete path before a templated one, a HEAD as the GET of its path, the methods a path serves.
 */
import { describe, expect, it } from "vitest";
import { operations } from "../../src/contract/operations.ts";
import { Router } from "../../src/core/request/router.ts";
import { matchPath } from "../lib/http/match.ts";

const router = new Router(operations);
const ID = "3f0c2f4e-9d1b-4c55-8e0a-2a7b6c1d9e01";
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Both matchers' answers, in one comparable shape. */
function both(method: string, path: string) {
  const kit = matchPath(method, path);
  const sim = router.match(method, path);
  const shape = (m: {
    kind: string;
    op?: { operationId: string };
    params?: object;
    allowed?: readonly string[];
  }) => ({
    kind: m.kind,
    op: m.op?.operationId,
    params: m.params,
    allowed: m.allowed ? [...m.allowed].sort() : undefined,
  });
  return { kit: shape(kit), sim: shape(sim) };
}

describe("the kit's operation matching", () => {
  it("agrees with the simulator on every path of the contract, every prefix, every method", () => {
    let compared = 0;
    for (const op of operations)
      for (const prefix of op.prefixes)
        for (const fill of [ID, "preview", "%E0%A4%A", ""]) {
          const path = `${prefix}${op.path.replace(/\{[^}]+\}/g, fill)}`;
          for (const method of METHODS) {
            const { kit, sim } = both(method, path);
            expect(kit, `${method} ${path}`).toEqual(sim);
            compared++;
          }
        }
    expect(compared).toBeGreaterThan(500);
  });

  it("takes a concrete path first, a HEAD as GET, and names what a path serves", () => {
    const a = `/api/v1/audiences/${ID}`;
    expect(matchPath("POST", `${a}/formations/preview`)).toMatchObject({
      op: { operationId: "previewFormation" },
    });
    expect(matchPath("GET", `${a}/formations/${ID}`)).toMatchObject({
      op: { operationId: "getFormation" },
      params: { audienceId: ID, formationId: ID },
    });
    expect(matchPath("HEAD", "/v1/auth/me")).toMatchObject({ op: { operationId: "getMe" } });
    expect(matchPath("PATCH", "/api/v1/auth/me")).toEqual({ kind: "method-not-allowed", allowed: ["GET"] });
    for (const unknown of ["/api/v1/nothing", "/api/v2/auth/me", "/api/v1/auth/me/", "/"])
      expect(matchPath("GET", unknown).kind, unknown).toBe("not-found");
  });
});
