/**
 * `--read-only` never changes the target: every check that would is skipped, and the rest leave the world
 * as they found it. Reads may stamp `lastUsedAt` on the key they use (the description lists it), and that
 * is the only difference allowed once the documented seeding on a first Formation listing has happened.
 */
import { expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import { formatViolations } from "../lib/reporting/report.ts";
import { runCheck } from "../lib/running/context.ts";
import { skipReason } from "../lib/running/skips.ts";
import { brokenServer } from "./harness.ts";

type Tables = Record<string, unknown[]>;

function tablesOf(server: { sim: { snapshot(): { state: { tables: unknown } } } }): Tables {
  const text = JSON.stringify(server.sim.snapshot().state.tables, (key, value) =>
    key === "lastUsedAt" ? undefined : value,
  );
  return JSON.parse(text) as Tables;
}

/** The rows of each table that are not as they were, as a message. */
function changes(before: Tables, after: Tables): string[] {
  return Object.keys({ ...before, ...after }).flatMap((t) => {
    const was = new Set((before[t] ?? []).map((r) => JSON.stringify(r)));
    const now = (after[t] ?? []).map((r) => JSON.stringify(r)).filter((r) => !was.has(r));
    const gone = (before[t] ?? []).length + now.length - (after[t] ?? []).length;
    return now.length || gone
      ? [`${t}: ${now.length} new or changed, ${gone} gone; ${now[0]?.slice(0, 300) ?? ""}`]
      : [];
  });
}

it("a read-only run skips every check that changes state and changes nothing", async () => {
  // Every write that went through: a read-only run may only send writes the target refuses (bad input,
  // no rights) and previews, which persist nothing.
  const accepted: string[] = [];
  const server = await brokenServer(async (req, next) => {
    const res = await next(req);
    const path = new URL(req.url).pathname;
    if (
      req.method !== "GET" &&
      req.method !== "HEAD" &&
      res.status < 400 &&
      !path.endsWith("/formations/preview")
    )
      accepted.push(`${req.method} ${path} ${res.status}`);
    return res;
  }, 13);
  try {
    const info = { ...server.info, readOnly: true };

    // Listing Formations at offset 0 seeds an Audience's default Formations (a documented effect of that
    // read); every role lists every Audience once first, and the builds it starts finish, so that only the
    // checks' own effects remain.
    for (const key of Object.values(info.keys))
      for (const id of Object.values(info.audiences))
        await fetch(`${info.baseUrl}${info.prefix}/audiences/${id}/formations`, {
          headers: { authorization: `Bearer ${key}` },
        });
    server.sim.advance(3_600_000);
    const before = tablesOf(server);
    accepted.length = 0;
    const ran = allChecks.filter((c) => skipReason(c, info) === null);
    expect(ran.filter((c) => c.mutates).map((c) => c.name)).toEqual([]);
    expect(ran.length).toBeGreaterThan(10);
    for (const c of ran) {
      const found = await runCheck(c, info);
      expect(found, formatViolations(found)).toEqual([]);
    }
    expect(changes(before, tablesOf(server))).toEqual([]);
    expect(accepted).toEqual([]);
  } finally {
    await server.close();
  }
});
