/**
 * The plan of a quick deployment run: within one rate-limit window per account, with the world model and
 * the 429 check last, real-time waits beside the rest, and what does not fit said, never dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/contract/limits.ts";
import { allChecks } from "../checks/index.ts";
import { accountOf } from "../lib/http/http.ts";
import type { TargetInfo } from "../lib/http/target.ts";
import { costOf, isElastic, isMeasured, planRun, whatDeepTakes } from "../lib/planning/budget.ts";
import { skipReason } from "../lib/running/skips.ts";
import { type BrokenServer, brokenServer } from "./harness.ts";

let server: BrokenServer;
let deployment: TargetInfo;
beforeAll(async () => {
  server = await brokenServer(null);
  deployment = {
    ...server.info,
    kind: "deployment",
    controlToken: null,
    quick: true,
    rateLimitPerMinute: 300,
    changeableAudiences: ["main"],
  };
});
afterAll(() => server.close());

describe("planRun", () => {
  it("plans nothing on the simulator: every check, in the kit's order, one after another", () => {
    const plan = planRun(allChecks, server.info);
    expect(plan.sequential).toEqual(allChecks);
    expect(plan.concurrent).toEqual([]);
    expect(plan.deferred).toEqual([]);
    expect(plan.budget).toBeNull();
  });

  it("keeps a quick deployment run within one window per account", () => {
    const plan = planRun(allChecks, deployment);
    expect(plan.budget).toBe(270);
    const spent = new Map<string, number>();
    for (const def of [...plan.concurrent, ...plan.sequential]) {
      if (isElastic(def) || def.needs?.rateLimit || skipReason(def, deployment)) continue;
      for (const [label, n] of Object.entries(costOf(def)))
        spent.set(accountOf(label), (spent.get(accountOf(label)) ?? 0) + n);
    }
    for (const [account, n] of spent) expect(n, account).toBeLessThanOrEqual(plan.budget as number);
    // Every check is somewhere, once.
    const all = [...plan.sequential, ...plan.concurrent, ...plan.deferred.map((d) => d.def)];
    expect(new Set(all).size).toBe(allChecks.length);
    for (const d of plan.deferred)
      expect(d.reason).toMatch(
        /^left for --deep: the \w+ account's window \(\d+ requests in a quick run\)( and the \w+ account's window \(\d+ requests in a quick run\))* (is|are) planned full$/,
      );
  });

  it("fits a window that others spent in part into what it had left, and says so", () => {
    const full = planRun(allChecks, deployment);
    const plan = planRun(allChecks, deployment, new Map([["owner", 100]]));
    const owners = (p: typeof plan) =>
      [...p.concurrent, ...p.sequential]
        .filter((d) => !isElastic(d) && !d.needs?.rateLimit && !d.needs?.consumesCollaborator)
        .filter((d) => !skipReason(d, deployment))
        .reduce((n, d) => n + (costOf(d).owner ?? 0), 0);
    // 100 left, the margin of 30 kept, the world model's third of the rest kept too.
    expect(owners(plan)).toBeLessThanOrEqual(Math.floor(71 * (2 / 3)));
    expect(owners(plan)).toBeLessThan(owners(full));
    expect(plan.short).toEqual({ owner: 100 });
    expect(plan.deferred.length).toBeGreaterThan(full.deferred.length);
    expect(plan.deferred.map((d) => d.reason).join("\n")).toMatch(
      /the owner account's window \(\d+ requests in this quick run: it had 100 left when the run began\)/,
    );
    // A full window said by the target changes nothing.
    expect(planRun(allChecks, deployment, new Map([["owner", 299]])).deferred).toEqual(full.deferred);
  });

  it("says what judging the checks it left would take: requests per account, windows, --deep", () => {
    const plan = planRun(allChecks, deployment, new Map([["owner", 100]]));
    const owner = plan.deferred.reduce((n, d) => n + (costOf(d.def).owner ?? 0), 0);
    const said = whatDeepTakes(plan) ?? "";
    expect(said).toContain(`the ${plan.deferred.length} check(s) left for --deep need about owner ${owner}`);
    expect(said).toMatch(
      /: (\d+) more rate-limit windows? \(about \1 min\) beside this run's; run with --deep/,
    );
    expect(whatDeepTakes(planRun(allChecks, server.info))).toBeNull();
  });

  it("runs the cases and then the world model on what is left, then the check that spends a window, then what uses up a consumable", () => {
    const names = planRun(allChecks, deployment).sequential.map((d) => d.name);
    const cases = names.filter((n) => n.startsWith("cases/"));
    expect(cases.length).toBeGreaterThan(5);
    expect(names.slice(-cases.length - 3)).toEqual([
      ...cases,
      "stateful/world",
      "ratelimit/429",
      "domain/collaborator-removal",
    ]);
    expect(planRun(allChecks, { ...deployment, quick: false }).sequential.at(-1)?.name).toBe(
      "domain/collaborator-removal",
    );
  });

  it("takes first what reaches most rules per request", () => {
    const plan = planRun(allChecks, deployment);
    const first = plan.sequential[0];
    const cost = (d: (typeof allChecks)[number]) => Object.values(costOf(d)).reduce((a, b) => a + b, 0);
    expect(first).toBeDefined();
    for (const d of plan.sequential.slice(1))
      if (!isElastic(d) && !d.needs?.rateLimit && !skipReason(d, deployment))
        expect(d.rules.length / (cost(d) + 1)).toBeLessThanOrEqual(
          (first?.rules.length ?? 0) / (cost(first as (typeof allChecks)[number]) + 1),
        );
  });

  it("runs the checks that wait on copies of their own beside the rest, also in a deep run", () => {
    const deep = planRun(allChecks, { ...deployment, quick: false });
    expect(deep.deferred).toEqual([]);
    expect(deep.budget).toBeNull();
    expect(deep.concurrent.map((d) => d.name).sort()).toEqual(
      allChecks
        .filter((d) => d.concurrent)
        .map((d) => d.name)
        .sort(),
    );
    expect(deep.concurrent.length).toBeGreaterThanOrEqual(4);
  });

  it("has a measured cost for every check a deployment can run", () => {
    const everything: TargetInfo = {
      ...deployment,
      changeableAudiences: Object.keys(deployment.audiences),
    };
    const unmeasured = allChecks.filter(
      (d) =>
        !skipReason(d, everything) && !d.needs?.rateLimit && d.name !== "stateful/world" && !isMeasured(d),
    );
    expect(unmeasured.map((d) => d.name)).toEqual([]);
    expect(LIMITS.rateLimitPerMinute).toBe(300);
  });
});
