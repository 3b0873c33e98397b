/**
 * Every case is proven able to fail: each fault made from it (case-faults.ts) runs behind one simulator,
 * switched per test (the cases put back what they change, and a fault only rewrites answers), and the
 * case's check must report it, naming the case. A deterministic sample runs in `npm test`; all of them
 * run with CONFORMANCE_ALL_CASE_FAULTS=1, and CONFORMANCE_CASE_FAULTS_REPORT=FILE writes what was caught.
 */
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createSimulator } from "../../src/simulator.ts";
import { CASE_GROUPS } from "../cases/index.ts";
import { caseCheck } from "../cases/run.ts";
import type { TargetInfo } from "../lib/http/target.ts";
import { type CaseFault, faultsOf, worldOfSim } from "./case-faults.ts";
import { brokenServer, deploymentServer, type Fault, runAll } from "./harness.ts";

const ALL = process.env.CONFORMANCE_ALL_CASE_FAULTS === "1";
/** One in `SAMPLE` of the faults, spread over every group and kind, when not all run. */
const SAMPLE = 4;
const DEPLOYMENT_SAMPLE = 16;

const reference = createSimulator({ clock: "manual" });
await reference.ready;
const w = worldOfSim(reference);

interface Planned {
  group: string;
  fault: CaseFault;
}

/** What each case's precondition made in the run under way: the faults read it to find their request. */
const made = new Map<string, Readonly<Record<string, unknown>>>();
const planned: Planned[] = Object.entries(CASE_GROUPS).flatMap(([group, cases]) =>
  cases.flatMap((c) => faultsOf(c, w, (id) => made.get(id)).map((fault) => ({ group, fault }))),
);

const caught: Record<string, { caught: boolean; mode: string }> = {};
afterAll(() => {
  const file = process.env.CONFORMANCE_CASE_FAULTS_REPORT;
  if (file) writeFileSync(file, JSON.stringify({ faults: planned.length, caught }, null, 2));
});

/** One server per mode, its fault switched per test. */
function switchable(): { fault: Fault; use(f: Fault | null): void } {
  let current: Fault | null = null;
  return {
    fault: (req, next, env) => (current ? current(req, next, env) : next(req)),
    use: (f) => {
      current = f;
    },
  };
}

const UNFIRED = "the reference server never gives the answer this fault changes (another allowed one)";

/** Runs the fault's case alone behind it: null when the fault changed no answer. */
async function runFault(
  p: Planned,
  info: TargetInfo,
  sw: ReturnType<typeof switchable>,
): Promise<{ hit: boolean; messages: string } | null> {
  sw.use(p.fault.fault);
  p.fault.fired();
  try {
    const c = casesOf(p.group, p.fault.caseId);
    made.clear();
    const found = await runAll([caseCheck(`cases/${p.group}`, [c])], info, {
      onCaseMade: (id, m) => made.set(id, m),
    });
    if (p.fault.fired() === 0) return null;
    return {
      hit: found.some((v) => v.message.startsWith(c.id)),
      messages: found.map((v) => v.message).join("\n"),
    };
  } finally {
    sw.use(null);
  }
}

function casesOf(group: string, id: string) {
  const c = CASE_GROUPS[group]?.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id}`);
  return c;
}

describe("each fault made from a case is reported by its check, naming the case", async () => {
  const sw = switchable();
  const server = await brokenServer(sw.fault);
  afterAll(() => server.close());
  const chosen = planned.filter((_, i) => ALL || i % SAMPLE === 0);
  it("names every case once", () => {
    const ids = Object.values(CASE_GROUPS)
      .flat()
      .map((c) => c.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
  it("makes a fault of every case, and of every kind", () => {
    const faulted = new Set(planned.map((p) => p.fault.caseId));
    const none = Object.values(CASE_GROUPS)
      .flat()
      .filter((c) => !faulted.has(c.id))
      .map((c) => c.id);
    expect(none).toEqual([]);
    const kinds = new Set(planned.map((p) => p.fault.kind));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(["accepted", "field", "message", "refused", "swapped"]),
    );
  });
  for (const p of chosen)
    it(p.fault.name, async (t) => {
      const found = await runFault(p, server.info, sw);
      if (found === null) return t.skip(UNFIRED);
      caught[p.fault.name] = { caught: found.hit, mode: "simulator" };
      expect(found.hit, found.messages || "nothing reported").toBe(true);
    });
});

describe("against a deployment (a config only), the same faults are reported", async () => {
  const sw = switchable();
  // Every Audience of the cast is the run's to change: each case that claims a deployment can run there.
  const server = await deploymentServer(sw.fault, "host", {
    changeable: ["main", "private", "public", "large", "empty", "atCap", "soloAudience"],
  });
  afterAll(() => server.close());
  const chosen = planned.filter(
    (p, i) => (ALL || i % DEPLOYMENT_SAMPLE === 1) && !casesOf(p.group, p.fault.caseId).simulatorOnly,
  );
  for (const p of chosen)
    it(p.fault.name, async (t) => {
      const found = await runFault(p, server.info, sw);
      if (found === null) return t.skip(UNFIRED);
      caught[`${p.fault.name} (deployment)`] = { caught: found.hit, mode: "deployment" };
      expect(found.hit, found.messages || "nothing reported").toBe(true);
    });
});

/**
 * What the HTTP layer answers before any route (414, 431) no fault in front of the simulator can change:
 * those cases are shown to fail behind node:http as it comes (a bare 431 with no envelope for a long
 * target or head, where the contract wants its own 414 and 431 in the envelope).
 */
describe("the HTTP layer's cases fail behind node:http's defaults", () => {
  const layerCases = Object.entries(CASE_GROUPS).flatMap(([group, cases]) =>
    cases.filter((c) => c.rule === "http/layer").map((c) => ({ group, c })),
  );
  it("has such cases", () => expect(layerCases.length).toBeGreaterThan(0));
  for (const mode of ["simulator", "deployment"] as const)
    for (const { group, c } of layerCases)
      it(`${c.id} (${mode})`, async () => {
        const server =
          mode === "simulator"
            ? await brokenServer(null, 7, "node-defaults")
            : await deploymentServer(null, "node-defaults");
        try {
          const found = await runAll([caseCheck(`cases/${group}`, [c])], server.info);
          const hit = found.some((v) => v.message.startsWith(c.id));
          caught[`${c.id} — node:http's defaults in front (${mode})`] = { caught: hit, mode };
          expect(hit, found.map((v) => v.message).join("\n")).toBe(true);
        } finally {
          await server.close();
        }
      });
});
