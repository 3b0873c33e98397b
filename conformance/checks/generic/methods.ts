/**
 * A method a path does not serve: answered with a 4xx in the error envelope (405 with `Allow` naming the
 * methods it does serve, per RFC 9110), and it changes nothing, not even when it carries a valid body.
 */

import { envelopeProblems, type Operation, operations } from "../../lib/description/contract.ts";
import { realParams } from "../../lib/properties/resources.ts";
import { check } from "../../lib/running/context.ts";

const METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH"] as const;

/** Each contract path once, with the methods the contract gives it. */
function paths(): {
  path: string;
  prefixes: string[];
  allowed: Set<string>;
  op: Operation;
}[] {
  const byPath = new Map<string, { path: string; prefixes: string[]; allowed: Set<string>; op: Operation }>();
  for (const o of operations()) {
    const row = byPath.get(o.path) ?? {
      path: o.path,
      prefixes: o.prefixes,
      allowed: new Set<string>(),
      op: o,
    };
    row.allowed.add(o.method);
    byPath.set(o.path, row);
  }
  return [...byPath.values()].filter((r) => r.prefixes.some((p) => p === "/api/v1" || p === "/api/acp"));
}

export const wrongMethod = check("generic/wrong-method", ["http/wrong-method", "errors/envelope"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  // Refused writes, by design; a target that wrongly takes one changes, so read-only runs skip it.
  mutates: true,
  async run(ctx) {
    // An editor of main with keys of its own: a wrong method taken as a right one shows in what it reads.
    // The admin where the target has one, so that the owner's rate-limit window goes to other checks.
    const caller = ctx.as(ctx.target.has("admin") ? "admin" : "owner");
    const audienceId = ctx.target.audience("main");
    const snapshot = async () => {
      const d = await ctx.call({ op: "getAudience", params: { audienceId }, as: caller });
      const k = await ctx.call({ op: "listApiKeys", as: caller });
      const { name, mindCount, isSharedWithTeam } = d.body?.data ?? {};
      return JSON.stringify({
        name,
        mindCount,
        isSharedWithTeam,
        keys: Array.isArray(k.body) ? k.body.length : null,
      });
    };
    const before = await snapshot();
    for (const row of paths()) {
      const params = realParams(row.op, ctx.target);
      const filled = row.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        encodeURIComponent(typeof params === "string" ? "cs_unknown" : (params[name] ?? "cs_unknown")),
      );
      const path = `${ctx.target.prefixFor(row.prefixes)}${filled}`;
      for (const method of METHODS.filter((m) => !row.allowed.has(m))) {
        const withBody = method !== "GET" && method !== "DELETE";
        const ex = await ctx.call({
          method,
          path,
          as: caller,
          ...(withBody ? { json: { name: "wrong-method probe", mindId: ctx.info.minds.ownLoose } } : {}),
          headers: { "idempotency-key": "wrongmethodprobe" },
        });
        const what = `${method} ${row.path} (serves ${[...row.allowed].join(", ")})`;
        if (
          !ctx.expect(
            ex.status >= 400 && ex.status < 500,
            "http/wrong-method",
            `${what} answered ${ex.status}`,
            ex,
          )
        )
          continue;
        const problems = envelopeProblems(ex.json, ex.status, [ex.pathname]);
        ctx.expect(problems.length === 0, "errors/envelope", `${what}: ${problems.join("; ")}`, ex);
        if (ex.status === 405) {
          const allow = (ex.header("allow") ?? "").split(",").map((m) => m.trim().toUpperCase());
          const missing = [...row.allowed].filter((m) => !allow.includes(m));
          ctx.expect(
            missing.length === 0,
            "http/wrong-method",
            `${what}: 405 with Allow ${JSON.stringify(ex.header("allow"))}`,
            ex,
          );
        }
      }
    }
    const after = await snapshot();
    ctx.expect(
      after === before,
      "http/wrong-method",
      `requests with wrong methods changed the world: ${before} became ${after}`,
      null,
    );
  },
});
