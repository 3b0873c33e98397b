/**
 * Formations made by every kind of viewer: collaborators make shared ones, other viewers private ones.
 * Who may read, delete and recompute each follows from who made it and who the caller is now (sharing
 * flags change in the same sequence), and listings page without phantom rows or pages.
 */
import type { CheckContext } from "../lib/running/context.ts";
import { hypothesis } from "../lib/running/helpers.ts";
import type { FormationRec, World } from "./model.ts";
import { canMutateFormation, canSeeFormation, canView, isCollaborator } from "./model.ts";
import type { Cast, Step } from "./steps.ts";

type S<K extends Step["k"]> = Extract<Step, { k: K }>;

export async function createFormation(c: CheckContext, w: World, cast: Cast, s: S<"createFormation">) {
  const proposed = hypothesis(s.subgroups, `w${w.formations.length}x`);
  const ex = await c.call({
    op: "createFormation",
    params: { audienceId: w.audienceId },
    as: c.as(s.as),
    json: { hypothesis: proposed },
  });
  const expected = canView(w, s.as) ? 200 : 404;
  if (!c.expectStatus(ex, expected, "formations/visibility", `${s.as} creating a Formation`)) return;
  if (expected !== 200) return;
  const status = String(ex.body?.data?.status);
  const f: FormationRec = {
    id: ex.body?.data?.id,
    creator: s.as,
    shared: isCollaborator(w, s.as),
    alive: true,
    status,
    subgroups: proposed.subgroups.map((g) => (g as { id: string }).id),
  };
  c.coverage.transition("formation", "∅", status);
  w.formations.push(f);
  await observeFormation(c, w, cast, f);
}

/** Every viewer reads the Formation; it answers exactly those the model lets see it. */
async function observeFormation(c: CheckContext, w: World, cast: Cast, f: FormationRec): Promise<void> {
  for (const role of cast.viewers) {
    const ex = await c.call({
      op: "getFormation",
      params: { audienceId: w.audienceId, formationId: f.id },
      as: c.as(role),
    });
    const expected = canSeeFormation(w, f, role) ? 200 : 404;
    const what = `${f.alive ? "" : "deleted "}${f.shared ? "shared" : "private"} Formation of ${f.creator}`;
    c.expectStatus(ex, expected, "formations/visibility", `${role} reading a ${what}`);
  }
}

export async function formation(c: CheckContext, w: World, cast: Cast, s: S<"formation">): Promise<void> {
  const f = w.formations[s.f % w.formations.length];
  if (!f) return;
  const params = { audienceId: w.audienceId, formationId: f.id };
  const op = { get: "getFormation", delete: "deleteFormation", recompute: "recomputeFormation" }[s.op];
  const ex = await c.call({ op, params, as: c.as(s.as) });
  const allowed = s.op === "get" ? canSeeFormation(w, f, s.as) : canMutateFormation(w, f, s.as);
  const expected = !allowed ? 404 : s.op === "delete" ? 204 : 200;
  const what = `${f.alive ? "" : "deleted "}${f.shared ? "shared" : "private"} Formation of ${f.creator}`;
  if (!c.expectStatus(ex, expected, "formations/mutability", `${s.as} ${s.op} on a ${what}`)) return;
  if (s.op === "recompute" && expected === 200) {
    c.expect(
      ex.body?.data?.id === f.id,
      "formations/lifecycle",
      `recompute answered for ${ex.body?.data?.id}, not ${f.id}`,
      ex,
    );
    const now = String(ex.body?.data?.status);
    if (now !== f.status) c.coverage.transition("formation", f.status, now);
    f.status = now;
  }
  if (s.op === "delete" && expected === 204) {
    c.coverage.transition("formation", f.status, "deleted");
    f.alive = false;
    await observeFormation(c, w, cast, f);
  }
}

/** A preview proposes subgroups and persists nothing: the owner's listing is the same before and after. */
export async function preview(c: CheckContext, w: World, _cast: Cast, s: S<"preview">): Promise<void> {
  const params = { audienceId: w.audienceId };
  const listed = async () => {
    const ex = await c.call({ op: "listFormations", params, as: c.as("owner"), query: { limit: 100 } });
    return ((ex.body?.data ?? []) as { id: string }[]).map((r) => r.id).join();
  };
  const before = await listed();
  const ex = await c.call({
    op: "previewFormation",
    params,
    as: c.as(s.as),
    headers: { accept: "application/json" },
    json: { userInput: "Split by seniority" },
  });
  const expected = canView(w, s.as) ? 200 : 404;
  c.expectStatus(ex, expected, "preview/persists-nothing", `${s.as} previewing`);
  const after = await listed();
  c.expect(after === before, "preview/persists-nothing", "the Formation list changed after a preview", null);
}

/**
 * Time passes (the simulator's clock, or real waiting against a deployment) until no Formation the run made
 * is building; each transition is recorded, and a ready one must have no progress left.
 */
export async function settleFormations(c: CheckContext, w: World): Promise<void> {
  const mine = w.formations.filter((f) => f.alive);
  // Each is read by someone who may see it: the owner for a shared one, its creator for a private one.
  const reader = (f: FormationRec) => (f.shared ? "owner" : f.creator);
  const observe = async (f: FormationRec) => {
    const params = { audienceId: w.audienceId, formationId: f.id };
    const ex = await c.call({ op: "getFormation", params, as: c.as(reader(f)) });
    if (!c.expectStatus(ex, 200, "formations/visibility", `${reader(f)} reading a Formation it may see`))
      return ex;
    const d = ex.body?.data ?? {};
    if (d.status !== f.status) c.coverage.transition("formation", f.status, String(d.status));
    f.status = String(d.status);
    const ids = ((d.hypothesis?.subgroups ?? []) as { id: string }[]).map((g) => g.id).join();
    c.expect(
      ids === f.subgroups.join(),
      "formations/lifecycle",
      `the stored hypothesis has subgroups ${ids}, not ${f.subgroups.join()}`,
      ex,
    );
    if (d.status === "ready")
      c.expect(
        d.progress === null,
        "formations/lifecycle",
        `a ready Formation has progress ${JSON.stringify(d.progress)}`,
        ex,
      );
    return ex;
  };
  const visible = mine.filter((f) => canSeeFormation(w, f, reader(f)));
  const settled = await c.waitUntil(
    async () => {
      for (const f of visible) await observe(f);
      return visible.every((f) => f.status !== "building");
    },
    1_000,
    "formationBuild",
  );
  const stuck = visible.filter((f) => f.status === "building");
  if (!settled && stuck.length)
    c.outOfTime(
      "formations/lifecycle",
      `${stuck.length} Formation(s) still building`,
      null,
      "formationBuild",
    );
}

/** Walks every page at the step's limit; the pages add up to the one-page listing, and end where it ends. */
export async function listFormations(c: CheckContext, w: World, _cast: Cast, s: S<"listFormations">) {
  const as = c.as(s.as);
  const params = { audienceId: w.audienceId };
  const whole = await c.call({ op: "listFormations", params, as, query: { limit: 100 } });
  const expected = canView(w, s.as) ? 200 : 404;
  if (!c.expectStatus(whole, expected, "formations/pagination", `${s.as} listing Formations`)) return;
  if (expected !== 200) return;
  const all = (whole.body?.data ?? []) as { id: string }[];
  const total = whole.body?.pagination?.total as number;
  for (const f of w.formations)
    c.expect(
      all.some((r) => r.id === f.id) === canSeeFormation(w, f, s.as),
      "formations/visibility",
      `${s.as}'s listing ${all.some((r) => r.id === f.id) ? "shows" : "lacks"} a ${f.alive ? "" : "deleted "}${f.shared ? "shared" : "private"} Formation of ${f.creator}`,
      whole,
    );
  if (total > 100 || total < 1) return;
  // Half the time a limit that divides the total, so the last page ends exactly at a multiple of it.
  const divisors = Array.from({ length: total }, (_, i) => i + 1).filter((d) => total % d === 0);
  const limit =
    s.limit % 2 === 0 ? (divisors[(s.limit >> 1) % divisors.length] as number) : 1 + (s.limit % total);
  const seen: string[] = [];
  for (let offset = 0, pages = 0; pages <= total; pages++) {
    const ex = await c.call({ op: "listFormations", params, as, query: { limit, offset } });
    const p = ex.body?.pagination ?? {};
    const rows = (ex.body?.data ?? []) as { id: string }[];
    seen.push(...rows.map((r) => r.id));
    const last = offset + limit >= total;
    if (
      !c.expect(
        p.hasMore === !last && p.nextOffset === (last ? null : offset + limit) && p.total === total,
        "formations/pagination",
        `page offset ${offset} limit ${limit} of ${total}: hasMore ${p.hasMore}, nextOffset ${p.nextOffset}, total ${p.total}`,
        ex,
      )
    )
      return;
    if (last) break;
    offset += limit;
  }
  c.expect(
    seen.join() === all.map((r) => r.id).join(),
    "formations/pagination",
    `pages of ${limit} list ${seen.length} rows; one page of 100 lists ${all.length} (or another order)`,
    whole,
  );
}

/** Deletes what the sequence made, as whoever may; a private one whose creator lost sight of it needs the Audience public for a moment. */
export async function cleanupFormations(
  c: CheckContext,
  w: World,
  restorePublic: (on: boolean) => Promise<void>,
) {
  for (const f of w.formations.filter((x) => x.alive)) {
    const by = canMutateFormation(w, f, f.creator) ? f.creator : f.shared ? "owner" : null;
    const params = { audienceId: w.audienceId, formationId: f.id };
    if (by) await c.call({ op: "deleteFormation", params, as: c.as(by) });
    else {
      await restorePublic(true);
      await c.call({ op: "deleteFormation", params, as: c.as(f.creator) });
      await restorePublic(w.isPublic);
    }
  }
}
