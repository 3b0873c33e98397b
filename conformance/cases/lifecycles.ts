/**
 * Cases whose world earlier requests and time make, for Formations: a build finished and read again and
 * recomputed, a soft-deleted Formation, a preview that persists nothing, and a fresh world where only the
 * first page seeds. The rest of such cases: later-work.ts (time) and later-accounts.ts (earlier requests).
 */
import type { CheckContext } from "../lib/running/context.ts";
import { hypothesis } from "../lib/running/helpers.ts";
import type { Case, CaseWorld, Field, Later, Made } from "./case.ts";
import { is, ok, onAud, oneOf, onMade } from "./case.ts";
import { formationBy, mainFormations, noFormationMade, refusedStep, settled } from "./given.ts";

/** A Formation the owner made on main, its build finished (ready or failed). */
async function builtFormation(ctx: CheckContext, w: CaseWorld, later: Later): Promise<Made> {
  const m = await formationBy(ctx, w, "main", "owner", later);
  if ("unmade" in m) return m;
  const params = { audienceId: w.aud("main"), formationId: m.made.formationId as string };
  const done = await settled(
    ctx,
    async () => {
      const ex = await ctx.call({ op: "getFormation", params, as: ctx.as("owner") });
      return ex.body?.data?.status !== "building";
    },
    "formationBuild",
  );
  return done ? m : { unmade: "the Formation's build did not finish within its deadline" };
}

const subgroupIds = (ids: readonly string[]): Field => ({
  holds: (v) => Array.isArray(v) && v.length === ids.length && v.every((g, i) => g?.id === ids[i]),
  says: `are not the subgroups ${ids.join(", ")} it was made from`,
  breaks: (v) => (Array.isArray(v) ? v.slice(1) : []),
});

const lacksId = (id: string): Field => ({
  holds: (v) => Array.isArray(v) && !v.some((f) => f?.id === id),
  says: `lists the deleted Formation ${id}`,
  breaks: (v) => (Array.isArray(v) ? [...v, { id }] : [{ id }]),
});

const FORMATIONS: Case[] = [
  {
    id: "getFormation owner: a finished build is ready (progress null) or failed, its hypothesis kept",
    rule: "formations/lifecycle",
    op: "getFormation",
    as: "owner",
    given: builtFormation,
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: w.made.formationId as string } }),
    expect: [
      ok(200, {
        "data.status": is("ready"),
        "data.progress": is(null),
        "data.hypothesis.subgroups": subgroupIds(["case0", "case1"]),
      }),
      ok(200, { "data.status": is("failed"), "data.hypothesis.subgroups": subgroupIds(["case0", "case1"]) }),
    ],
  },
  {
    id: "recomputeFormation owner: a finished Formation goes back to building (or finishes inline)",
    rule: "formations/lifecycle",
    op: "recomputeFormation",
    as: "owner",
    given: builtFormation,
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: w.made.formationId as string } }),
    expect: (w) => [
      ok(200, { "data.id": is(w.made.formationId), "data.status": oneOf("building", "ready", "failed") }),
    ],
    after: [
      {
        what: "it keeps its hypothesis",
        op: "getFormation",
        as: "owner",
        request: (w) => ({
          params: { audienceId: w.aud("main"), formationId: w.made.formationId as string },
        }),
        expect: [ok(200, { "data.hypothesis.subgroups": subgroupIds(["case0", "case1"]) })],
      },
    ],
  },
  {
    id: "listFormations owner: a deleted Formation is not listed (soft delete)",
    rule: "formations/lifecycle",
    op: "listFormations",
    as: "owner",
    given: async (ctx, w, later) => {
      const m = await formationBy(ctx, w, "main", "owner", later);
      if ("unmade" in m) return m;
      const params = { audienceId: w.aud("main"), formationId: m.made.formationId as string };
      const gone = await ctx.call({ op: "deleteFormation", params, as: ctx.as("owner") });
      return gone.status === 204 ? m : refusedStep(gone, 204, "the owner deleting its Formation");
    },
    request: onAud("main"),
    expect: (w) => [ok(200, { data: lacksId(w.made.formationId as string) })],
  },
  {
    id: "previewFormation owner on main: a preview persists nothing",
    rule: "preview/persists-nothing",
    op: "previewFormation",
    as: "owner",
    mutates: false,
    given: mainFormations,
    request: onAud("main", {
      json: { priorHypothesis: hypothesis(2, "pv") },
      headers: { accept: "application/json" },
    }),
    expect: [ok(200, { success: is(true) })],
    after: [noFormationMade],
  },
];

/**
 * A fresh world of the simulator's (a sandbox of the run's scenario) where no listing has seeded anything:
 * the sandbox's solo key and soloAudience (grounded, so a listing at offset 0 seeds from its charts).
 */
async function freshWorld(ctx: CheckContext, later: Later): Promise<Made> {
  const info = ctx.info;
  if (info.sandbox)
    return { unmade: "the run is in a sandbox: a fresh world needs the operator's control plane" };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (info.controlToken) headers["x-sim-control-token"] = info.controlToken;
  const res = await fetch(`${info.baseUrl}/__sim/sandboxes`, {
    method: "POST",
    headers,
    body: JSON.stringify(info.world && typeof info.world === "object" ? { scenario: info.world } : {}),
  });
  if (res.status !== 201)
    return { unmade: `a fresh world could not be made (POST /__sim/sandboxes answered ${res.status})` };
  const made = (await res.json()) as {
    id: string;
    manifest: { users: Record<string, { apiKey: string }>; audiences: Record<string, { id: string }> };
  };
  later(() => fetch(`${info.baseUrl}/__sim/sandboxes/${made.id}`, { method: "DELETE", headers }));
  const solo = made.manifest.users.solo?.apiKey;
  const audienceId = made.manifest.audiences.soloAudience?.id;
  if (!solo || !audienceId) return { unmade: "the fresh world lacks solo or soloAudience" };
  return { made: { audienceId }, as: { key: solo, label: "solo_fresh" } };
}

const SEEDING: Case[] = [
  {
    id: "listFormations solo in a fresh world: a page past offset 0 seeds nothing, offset 0 seeds",
    rule: "reads/safe",
    also: ["formations/pagination"],
    op: "listFormations",
    as: "solo",
    simulatorOnly:
      "only a world no listing has touched shows what the first listing seeds: a new sandbox of the run's world",
    given: (ctx, _w, later) => freshWorld(ctx, later),
    request: (w) => ({ params: { audienceId: w.made.audienceId as string }, query: { offset: 3 } }),
    expect: [ok(200, { "pagination.offset": is(3) })],
    after: [
      {
        what: "the first page, which seeds the grounded Audience's Formations",
        op: "listFormations",
        as: "case",
        request: onMade("audienceId"),
        expect: (_w, answer) => [ok(200, { "pagination.total": moreThan(answer.body?.pagination?.total) })],
      },
    ],
  },
];

const moreThan = (before: unknown): Field => ({
  holds: (v) => typeof v === "number" && typeof before === "number" && v > before,
  says: `is not more than the ${String(before)} a page past offset 0 showed: that page seeded them already (only offset 0 seeds)`,
  breaks: () => before,
});

export const LIFECYCLE_CASES: Case[] = [...FORMATIONS, ...SEEDING];
