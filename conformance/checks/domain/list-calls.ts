/**
 * What a list call may and may not change. A listing is a read: the calling key is used (its `lastUsedAt`
 * may move), and nothing else moves: another key, never used, stays `lastUsedAt: null`, a second listing
 * is the first one again, and the Audience whose Formations and collaborators were listed keeps its
 * `updatedAt`.
 */

import type { Exchange } from "../../lib/http/http.ts";
import { fingerprint } from "../../lib/properties/state.ts";
import { check } from "../../lib/running/context.ts";
import { deleteKeyLater, newKey } from "../../lib/running/helpers.ts";

interface KeyRow {
  id: string;
  name: string | null;
  createdAt: string;
  lastUsedAt?: string | null;
}

export const listCalls = check("domain/list-calls", ["reads/safe"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const made = await newKey(ctx, "owner", "never-used");
    ctx.requireStatus(made, 201, "reads/safe", "creating a key to leave unused");
    deleteKeyLater(ctx, made.body.id);
    const first = await ctx.call({ op: "listApiKeys", as: owner });
    const second = await ctx.call({ op: "listApiKeys", as: owner });
    const rows = (ex: Exchange): KeyRow[] => (Array.isArray(ex.body) ? ex.body : []);
    for (const ex of [first, second]) {
      const unused = rows(ex).find((k) => k.id === made.body.id);
      ctx.expect(
        unused !== undefined && unused.lastUsedAt === null,
        "reads/safe",
        `a key never used is listed with lastUsedAt ${JSON.stringify(unused?.lastUsedAt)} after another key listed the keys`,
        ex,
      );
    }
    // Only the calling key may show a new use; every other field of every key stays.
    const before = new Map(rows(first).map((k) => [k.id, k]));
    const moved = rows(second).filter((k) => before.get(k.id)?.lastUsedAt !== k.lastUsedAt);
    ctx.expect(
      moved.length <= 1,
      "reads/safe",
      `listing the keys moved lastUsedAt of ${moved.length} keys (${moved.map((k) => k.id).join(", ")}), not only the calling key's`,
      second,
    );
    const stable = (ex: Exchange) => fingerprint(rows(ex).map(({ lastUsedAt: _, ...k }) => k));
    ctx.expect(
      stable(first) === stable(second),
      "reads/safe",
      "listing the keys again answered other keys, names or dates",
      second,
    );

    const params = { audienceId: ctx.target.audience("main") };
    const detail = () => ctx.call({ op: "getAudience", params, as: owner });
    const was = await detail();
    for (const op of ["listFormations", "listCollaborators"] as const) {
      const query = op === "listFormations" ? { limit: 100 } : undefined;
      const a = await ctx.call({ op, params, as: owner, ...(query ? { query } : {}) });
      const b = await ctx.call({ op, params, as: owner, ...(query ? { query } : {}) });
      if (!ctx.expectStatus(a, 200, "reads/safe", `the owner's ${op} of main`)) continue;
      const changed = settledItems(a.json).filter(
        (item) => !settledItems(b.json).some((other) => fingerprint(other) === fingerprint(item)),
      );
      ctx.expect(
        changed.length === 0,
        "reads/safe",
        `${op} answered ${changed.length} item(s) differently the second time (first: ${String(JSON.stringify(changed[0])).slice(0, 200)})`,
        b,
      );
    }
    const now = await detail();
    const at = (ex: Exchange) => ex.body?.data?.updatedAt;
    ctx.expect(
      was.status !== 200 || at(was) === at(now),
      "reads/safe",
      `listing its Formations and collaborators moved the Audience's updatedAt from ${at(was)} to ${at(now)}`,
      now,
    );
  },
});

/**
 * The items of a listing that time alone does not move: a Formation still building may progress or
 * become ready between two reads against a deployment; a ready one, or a collaborator, may not change.
 */
function settledItems(body: unknown): unknown[] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) return [];
  return data.filter((item: { status?: string }) => item.status !== "building");
}
