/**
 * A slice of the conformance suite run in process against the MSW host (msw/node `setupServer`, the kit's
 * client sending through global fetch) and against the Node host (`startServer`, the kit's own undici
 * client): both pass the same checks with no violations, so the two hosts answer alike.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { domainChecks } from "../../conformance/checks/domain.ts";
import { genericChecks } from "../../conformance/checks/generic.ts";
import { statefulChecks } from "../../conformance/checks/stateful.ts";
import { discover, type TargetInfo } from "../../conformance/lib/http/target.ts";
import { formatViolations, type Violation } from "../../conformance/lib/reporting/report.ts";
import type { CheckDef, RunOptions } from "../../conformance/lib/running/context.ts";
import { runCheck } from "../../conformance/lib/running/context.ts";
import { skipReason } from "../../conformance/lib/running/skips.ts";
import { startServer } from "../node/server.ts";
import { createSimulator } from "../simulator.ts";
import { createHandlers } from "./index.ts";

const SEED = 7;
const MSW_ORIGIN = "http://msw.test";
const SLICE = [
  "generic/valid-reads",
  "generic/auth-401",
  "generic/malformed-ids-reads",
  "generic/unknown-ids-reads",
  "domain/identity",
  "domain/api-key-secrets",
  "domain/members",
  "domain/filter-facets",
  "domain/preview-stream",
  "stateful/world",
];
const byName = new Map([...genericChecks, ...domainChecks, ...statefulChecks].map((c) => [c.name, c]));
const checks: CheckDef[] = SLICE.map((name) => {
  const def = byName.get(name);
  if (!def) throw new Error(`no conformance check named ${name}`);
  return def;
});

interface SliceResult {
  passed: string[];
  violations: Violation[];
}

function targetAt(baseUrl: string, host: string): Promise<TargetInfo> {
  return discover({
    target: baseUrl,
    config: null,
    seed: SEED,
    runs: null,
    readOnly: false,
    noReset: false,
    controlToken: null,
    runId: `msw-conformance-${host}-${process.pid}`,
  });
}

/** Runs the slice check by check; a check passes when it ran (not skipped) and found nothing. */
async function runSlice(info: TargetInfo, options: RunOptions = {}): Promise<SliceResult> {
  const passed: string[] = [];
  const violations: Violation[] = [];
  for (const def of checks) {
    const reason = skipReason(def, info);
    if (reason) throw new Error(`${def.name} would be skipped: ${reason}`);
    let found: Violation[];
    try {
      found = await runCheck(def, info, undefined, options);
    } catch (e) {
      found = (e as { violations?: Violation[] }).violations ?? [];
      if (found.length === 0) throw e;
    }
    violations.push(...found);
    if (found.length === 0) passed.push(def.name);
  }
  return { passed, violations };
}

const results: { node?: SliceResult; msw?: SliceResult } = {};

describe("the Node host", () => {
  it("passes the conformance slice", async () => {
    const sim = createSimulator({ clock: "manual", scenario: "default", seed: SEED });
    const server = await startServer(sim, { port: 0, host: "127.0.0.1", onError: () => {} });
    try {
      results.node = await runSlice(await targetAt(server.url, "node"));
    } finally {
      await server.close();
    }
    expect(results.node.violations, formatViolations(results.node.violations)).toEqual([]);
    expect(results.node.passed).toEqual(SLICE);
  }, 60_000);
});

describe("the MSW host", () => {
  const handlers = createHandlers({ clock: "manual", scenario: "default", seed: SEED });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());

  it("passes the conformance slice through global fetch", async () => {
    await handlers.simulator.ready;
    // The client sends through global fetch, the one msw/node intercepts, rather than its undici agent.
    results.msw = await runSlice(await targetAt(MSW_ORIGIN, "msw"), {
      fetch: (input, init) => fetch(input, init),
    });
    expect(results.msw.violations, formatViolations(results.msw.violations)).toEqual([]);
    expect(results.msw.passed).toEqual(SLICE);
  }, 60_000);

  it("passes exactly the checks the Node host passes", () => {
    expect(results.node).toBeDefined();
    expect(results.msw?.passed).toEqual(results.node?.passed);
  });
});
