/**
 * Duplicating an Audience: the idempotency key replays one copy, and the copy keeps what the description
 * says it keeps (independent Minds, grounding, sources, Formations, validation history) and drops what it
 * drops (sharing, public links).
 */

import type { Role } from "../../lib/http/target.ts";
import { check } from "../../lib/running/context.ts";
import {
  DUPLICATOR_NEEDS,
  deleteAudienceLater,
  duplicateAs,
  duplicator,
  fresh,
  memberIds,
  NO_DUPLICATOR,
  ok,
  readAudience,
  recalibrate,
} from "../../lib/running/helpers.ts";

export const duplicateReplay = check(
  "domain/duplicate-replay",
  ["duplicate/replay", "duplicate/default-name"],
  {
    needs: DUPLICATOR_NEEDS,
    mutates: true,
    async run(ctx) {
      const who = duplicator(ctx);
      if (!who) return ctx.inconclusive(NO_DUPLICATOR);
      const dup = (key: string, role: Role = who.role, json: object = {}) =>
        duplicateAs(ctx, who.audienceId, role, json, key);
      const key = fresh("replay");
      const a = await dup(key);
      const b = await dup(key);
      const renamed = await dup(key, who.role, { name: "Another name, same key" });
      const c = await dup(fresh("other"));
      if (
        ctx.expect(
          a.status === 201 && b.status === 200 && c.status === 201,
          "duplicate/replay",
          `answers ${a.status}, ${b.status} (replay), ${c.status} (new key)`,
          b,
        )
      ) {
        ctx.expect(a.body.data.id === b.body.data.id, "duplicate/replay", "the replay names another copy", b);
        ctx.expect(
          a.body.data.id !== c.body.data.id,
          "duplicate/replay",
          "a new key returned the earlier copy",
          c,
        );
        ctx.expect(
          renamed.status !== 201 && (renamed.status >= 400 || renamed.body?.data?.id === a.body.data.id),
          "duplicate/replay",
          `the same key with another name answered ${renamed.status} ${renamed.body?.data?.id ?? ""}: a second copy, not the replay`,
          renamed,
        );
        if (renamed.status === 200)
          ctx.expect(
            renamed.body?.data?.name === a.body.data.name,
            "duplicate/replay",
            `the replay renamed the copy to ${JSON.stringify(renamed.body?.data?.name)}`,
            renamed,
          );
      }
      if (a.status === 201) {
        const original = await readAudience(ctx, who.audienceId, who.role);
        const from = original.body?.data?.name;
        const named = a.body?.data?.name;
        if (typeof from === "string")
          ctx.expect(
            typeof named === "string" && named.startsWith(from) && named.trim() !== from.trim(),
            "duplicate/default-name",
            `a copy of ${JSON.stringify(from)} made without a name is named ${JSON.stringify(named)}`,
            a,
          );
        const copy = await readAudience(ctx, a.body.data.id, who.role);
        ctx.expect(copy.body?.data?.isPublic === false, "duplicate/replay", "the copy is public", copy);
        if (ctx.target.has("outsider")) {
          const peek = await ctx.call({
            op: "getAudience",
            params: { audienceId: a.body.data.id },
            as: ctx.as("outsider"),
          });
          ctx.expect(
            peek.status === 404,
            "duplicate/replay",
            `an outsider reads the private copy (${peek.status})`,
            peek,
          );
        }
      }
      if (who.role === "publisher" && ctx.target.has("outsider")) {
        const viewer = await dup(fresh("viewer"), "outsider");
        ctx.expectStatus(viewer, 403, "duplicate/replay", "a public viewer duplicating");
      }
    },
  },
);

export const duplicateContents = check("domain/duplicate-contents", ["duplicate/contents"], {
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const role: Role = "teammate";
    const as = ctx.as(role);
    const audienceId = ctx.target.audience("main");
    const key = fresh("contents");
    const made = await ctx.call({
      op: "duplicateAudience",
      params: { audienceId },
      as,
      json: {},
      headers: { "x-service-idempotency-key": key },
    });
    ctx.requireStatus(made, 201, "duplicate/contents", `duplicating main as ${role}`);
    const copyId = made.body.data.id as string;
    deleteAudienceLater(ctx, copyId, role);
    if (ctx.target.has("admin")) {
      // An idempotency key is the caller's own: another editor using it gets a copy of their own, never this one.
      const theirs = await ctx.call({
        op: "duplicateAudience",
        params: { audienceId },
        as: ctx.as("admin"),
        json: {},
        headers: { "x-service-idempotency-key": key },
      });
      if (ok(theirs) && theirs.body?.data?.id !== copyId)
        deleteAudienceLater(ctx, theirs.body.data.id, "admin");
      ctx.expect(
        theirs.body?.data?.id !== copyId,
        "duplicate/contents",
        `the admin using the teammate's idempotency key received the teammate's copy (${theirs.status})`,
        theirs,
      );
    }
    const read = (id: string) => ctx.call({ op: "getAudience", params: { audienceId: id }, as });
    const [orig, copy] = [(await read(audienceId)).body?.data ?? {}, (await read(copyId)).body?.data ?? {}];
    for (const [field, dropped] of [
      ["isPublic", false],
      ["isSharedWithTeam", false],
      ["isLinkSharingEnabled", false],
      ["publicShareId", null],
    ] as const)
      ctx.expect(
        copy[field] === dropped,
        "duplicate/contents",
        `the copy has ${field} ${JSON.stringify(copy[field])}, not ${JSON.stringify(dropped)}`,
        made,
      );
    ctx.expect(
      copy.currentMemberRole === "owner",
      "duplicate/contents",
      `the duplicator is ${copy.currentMemberRole} of the copy`,
      made,
    );
    const ids = (d: { minds?: { id: string }[] }) => (d.minds ?? []).map((m) => m.id);
    ctx.expect(
      ids(copy).length === ids(orig).length,
      "duplicate/contents",
      `the copy has ${ids(copy).length} Minds, the original ${ids(orig).length}`,
      made,
    );
    const shared = ids(copy).filter((id) => ids(orig).includes(id));
    ctx.expect(
      shared.length === 0,
      "duplicate/contents",
      `${shared.length} Minds of the copy are the original's own, not copies`,
      made,
    );
    const charts = (d: { grounding?: { charts?: unknown[] } | null }) => d.grounding?.charts?.length ?? 0;
    ctx.expect(
      charts(copy) === charts(orig),
      "duplicate/contents",
      `the copy has ${charts(copy)} grounding charts, the original ${charts(orig)}`,
      made,
    );
    ctx.expect(
      copy.sources?.brief === orig.sources?.brief,
      "duplicate/contents",
      "the copy's brief differs from the original's",
      made,
    );
    const names = async (id: string) => {
      const ex = await ctx.call({ op: "listFormations", params: { audienceId: id }, as });
      return ((ex.body?.data ?? []) as { name: string; status: string; visibility?: string }[])
        .filter((f) => f.status === "ready" && f.visibility !== "private")
        .map((f) => f.name);
    };
    const copied = await names(copyId);
    const missing = (await names(audienceId)).filter((n) => !copied.includes(n));
    ctx.expect(
      missing.length === 0,
      "duplicate/contents",
      `Formations not copied: ${missing.join(", ")}`,
      null,
    );
    const status = async (id: string) =>
      (
        await ctx.call({
          op: "getExportStatus",
          params: { audienceId: id },
          as,
          query: { kind: "validation_report", format: "pdf" },
        })
      ).body?.data?.status;
    const [before, after] = [await status(audienceId), await status(copyId)];
    if (before !== undefined && before !== "unavailable")
      ctx.expect(
        after !== "unavailable",
        "duplicate/contents",
        "the copy has no scored validation although the original has",
        null,
      );
    // Running jobs are not copied: a copy made while a recalibration runs on its original is not calibrating.
    const working = await recalibrate(ctx, copyId, as, { instruction: "Focus on buyers at mid-sized firms" });
    ctx.requireStatus(working, 202, "duplicate/contents", "a recalibration of the copy");
    const again = await duplicateAs(ctx, copyId, role, {}, fresh("busy"));
    ctx.requireStatus(again, 201, "duplicate/contents", "copying an Audience while it recalibrates");
    const [busy, idle] = [(await read(copyId)).body?.data, (await read(again.body.data.id)).body?.data];
    if (busy?.calibration?.active === true)
      ctx.expect(
        idle?.calibration?.active === false,
        "duplicate/contents",
        `a copy made while its original recalibrates has calibration.active ${JSON.stringify(idle?.calibration?.active)}: the running job was copied`,
        again,
      );
  },
});

export const duplicatePlanLimit = check("domain/duplicate-plan-limit", ["duplicate/plan-limit"], {
  needs: { roles: ["owner"], audiences: ["atCap"], plan: ["owner", "premium"] },
  // Refused by design; a target that wrongly makes the copy changes, and the copy is deleted again.
  mutates: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("atCap");
    const members = (await memberIds(ctx, audienceId)).length;
    const ex = await ctx.call({
      op: "duplicateAudience",
      params: { audienceId },
      as: ctx.as("owner"),
      json: {},
      headers: { "x-service-idempotency-key": fresh("over-allowance") },
    });
    if (ok(ex) && ex.body?.data?.id) deleteAudienceLater(ctx, ex.body.data.id, "owner");
    const d = ex.body?.data ?? {};
    // A premium plan allows 100 Minds, and the owner owns some already: a copy of as many is past it.
    ctx.requireStatus(ex, 403, "duplicate/plan-limit", `a premium owner copying ${members} Minds`);
    ctx.expect(
      d.code === "PLAN_LIMIT" && d.limitType === "sparks" && d.current + members > d.limit,
      "duplicate/plan-limit",
      `403 with data ${JSON.stringify(d)} for a copy of ${members} Minds`,
      ex,
    );
  },
});
