/**
 * What the Formation tests share: a fresh default world for every test, paths and records by handle,
 * hypotheses of any size, and Formations put straight into state for shapes the API cannot make.
 */
import { expect } from "vitest";
import type { FormationRecord } from "../src/core/world/state.ts";
import { formationRecord, JOB_COMPLETE, JOB_STEP } from "../src/resources/formations/formation-builds.ts";
import { type CallResult, harnessEachTest } from "./harness.ts";

/** The running test's harness: every read goes to the world its `beforeEach` made. */
export const { h, fresh: freshWorldEachTest } = harnessEachTest();

export const base = (audience: string): string =>
  `/api/v1/audiences/${h.id("audiences", audience)}/formations`;
export const one = (audience: string, formation: string): string => `${base(audience)}/${formation}`;
export const fid = (handle: string): string => h.id("formations", handle);
export const record = (id: string): FormationRecord => {
  const f = h.sim.state.formations.get(id);
  if (!f) throw new Error(`no formation ${id}`);
  return f;
};

export function hypothesis(n: number, intent = "Split by favourite season") {
  return {
    intent,
    subgroups: Array.from({ length: n }, (_, i) => ({
      id: `g${i + 1}`,
      label: `Group ${i + 1}`,
      definition: `Members of group ${i + 1}`,
    })),
  };
}

/** Every row of a listing, following `nextOffset`. */
export async function listAll(as: string, audience: string, limit = 100) {
  const rows: { id: string; status: string; createdAt: string }[] = [];
  let offset: number | null = 0;
  let total: number | null = null;
  while (offset !== null) {
    const r: CallResult = await h.call("GET", `${base(audience)}?limit=${limit}&offset=${offset}`, {
      as,
    });
    expect(r.status).toBe(200);
    total ??= r.body.pagination.total;
    expect(r.body.pagination.total).toBe(total);
    rows.push(...r.body.data);
    offset = r.body.pagination.nextOffset;
  }
  return { rows, total: total ?? 0 };
}

/** A Formation put straight into state, for shapes the API cannot create (auto dimensions, legacy data). */
export function insert(audience: string, over: Partial<FormationRecord>): FormationRecord {
  const spec = { name: "Inserted", visibility: "shared", hypothesis: hypothesis(2) } as const;
  const id = crypto.randomUUID();
  const f: FormationRecord = {
    ...formationRecord(id, h.id("audiences", audience), h.id("users", "owner"), spec, h.sim.clock.now()),
    status: "ready",
    buildSeq: 1,
    ...over,
  };
  h.sim.state.formations.set(f.id, f);
  return f;
}

/** Drops the queued build jobs of a Formation: it is `building` with nothing left to finish it. */
export function stall(id: string): void {
  h.sim.clock.cancel(
    (j) =>
      (j.kind === JOB_STEP || j.kind === JOB_COMPLETE) &&
      (j.payload as { formationId: string }).formationId === id,
  );
}

export const pendingBuild = (id: string): boolean =>
  h.sim.clock
    .pending()
    .some((j) => j.kind === JOB_COMPLETE && (j.payload as { formationId: string }).formationId === id);

export async function create(audience: string, body: unknown, as = "owner") {
  return h.call("POST", base(audience), { as, body });
}
