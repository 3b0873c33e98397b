/**
 * The recalibration operation's `statusUrl`: the address the 202 hands out is served, under every v1
 * prefix, to the Audience's readers only, and moves with time from queued to a terminal state that a
 * replay of the request key agrees with.
 */
import type { Exchange } from "../../lib/http/http.ts";
import type { CheckContext } from "../../lib/running/context.ts";
import { sandboxCheck } from "./recalibrate.ts";

const ORDER = ["queued", "running", "completed", "failed"];
type Rules = "recalibrate/status-url" | "recalibrate/calibration-active";

export const recalibrationStatus = sandboxCheck(
  "domain/recalibration-status",
  ["recalibrate/status-url", "recalibrate/calibration-active"],
  async (ctx, { audienceId, send }) => {
    const accepted = await send();
    ctx.requireStatus(accepted, 202, "recalibrate/status-url", "recalibrate");
    const receipt = accepted.body?.data?.operation ?? {};
    const statusUrl = String(receipt.statusUrl ?? "");
    const operationId = String(receipt.id ?? "");
    const path = `/audiences/${audienceId}/recalibrate/operations/${operationId}`;
    const prefix = ctx.target
      .v1Prefixes()
      .find((p) => statusUrl === `${p}${path}` || statusUrl.endsWith(`${p}${path}`));
    if (prefix === undefined) {
      ctx.report({
        rule: "recalibrate/status-url",
        message: `statusUrl ${JSON.stringify(statusUrl)} is not {prefix}${path}`,
        exchange: accepted,
      });
      return;
    }
    const read = (p: string, as = ctx.as("teammate"), id = operationId) =>
      ctx.call({ op: "getRecalibrationOperation", prefix: p, params: { audienceId, operationId: id }, as });

    // The Audience is read before the operation: if the operation is still unfinished after, it was then.
    const calibrating = async () =>
      (await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as("teammate") })).body?.data
        ?.calibration?.active;
    const activeBefore = await calibrating();
    const first = await read(prefix);
    ctx.requireStatus(first, 200, "recalibrate/status-url", "GET statusUrl");
    const unfinished = ["queued", "running"].includes(String(first.body?.data?.operation?.status));
    if (unfinished)
      ctx.expect(
        activeBefore === true,
        "recalibrate/calibration-active",
        `calibration.active is ${JSON.stringify(activeBefore)} while the recalibration is ${first.body.data.operation.status}`,
        first,
      );
    const op = first.body?.data?.operation ?? {};
    ctx.coverage.transition("recalibration", "∅", String(op.status));
    ctx.expect(
      op.id === receipt.id && op.requestKey === receipt.requestKey,
      "recalibrate/status-url",
      `statusUrl names operation ${op.id} (${op.requestKey}), the 202 named ${receipt.id} (${receipt.requestKey})`,
      first,
    );
    for (const other of ctx.target.v1Prefixes().filter((p) => p !== prefix)) {
      const ex = await read(other);
      ctx.expectStatus(ex, 200, "recalibrate/status-url", `statusUrl under ${other}`);
    }
    if (ctx.target.has("outsider")) {
      const hidden = await read(prefix, ctx.as("outsider"));
      ctx.expect(
        hidden.status === 404,
        "recalibrate/status-url",
        `an outsider reading statusUrl got ${hidden.status}, not 404`,
        hidden,
      );
    }
    const unknown = await read(prefix, ctx.as("teammate"), "op_conformance_unknown");
    ctx.expectStatus(unknown, 404, "recalibrate/status-url", "an unknown operation");

    // Through time: status only moves forward, progress never falls, and it ends terminal.
    const { done, last, rank, disagreed } = await follow(ctx, first, () => read(prefix), send);
    if (!done)
      return ctx.outOfTime(
        "recalibrate/status-url",
        `the operation was still ${ORDER[rank]}`,
        last,
        "recalibration",
      );
    if (disagreed)
      ctx.endAfterReport(
        "the operation and the Audience disagreed on whether it has finished (reported above)",
      );
    const final = last.body?.data?.operation ?? {};
    const activeAfter = await calibrating();
    ctx.expect(
      activeAfter === false,
      "recalibrate/calibration-active",
      `calibration.active is ${JSON.stringify(activeAfter)} after the only recalibration ended ${final.status}`,
      last,
    );
    if (final.status === "completed") {
      ctx.expect(
        final.progress === 100,
        "recalibrate/status-url",
        `a completed operation reports progress ${final.progress}`,
        last,
      );
    }
    await ctx.stillAfter(
      "recalibrate/status-url",
      `operation ${final.id}`,
      String(final.status),
      async () => {
        const exchange = await read(prefix);
        return { state: exchange.body?.data?.operation?.status, exchange };
      },
    );
    const replay = await send();
    const replayed = replay.body?.data?.operation ?? {};
    if (replay.status === 200) ctx.coverage.transition("recalibration", String(final.status), "replayed");
    ctx.expect(
      replay.status === 200 && replayed.status === final.status && replayed.id === final.id,
      "recalibrate/status-url",
      `statusUrl says ${final.status} for ${final.id}; the replay of its key answered ${replay.status} with ${replayed.status} for ${replayed.id}`,
      replay,
    );
  },
);

/**
 * Reads statusUrl until the operation ends (or the check's time does): status only moves forward and
 * progress never falls; against a deployment, the replay of the key is set against it on every read.
 */
async function follow(
  ctx: CheckContext<Rules>,
  first: Exchange,
  read: () => Promise<Exchange>,
  send: () => Promise<Exchange>,
): Promise<{ done: boolean; last: Exchange; rank: number; disagreed: boolean }> {
  const op = first.body?.data?.operation ?? {};
  let last: Exchange = first;
  let rank = ORDER.indexOf(String(op.status));
  let progress = Number(op.progress ?? 0);
  let disagreed = false;
  const done = await ctx.waitUntil(
    async () => {
      last = await read();
      const now = last.body?.data?.operation ?? {};
      const r = ORDER.indexOf(String(now.status));
      ctx.expectStatus(last, 200, "recalibrate/status-url", "polling statusUrl");
      ctx.expect(
        r >= Math.min(rank, 2),
        "recalibrate/status-url",
        `status went back from ${ORDER[rank]} to ${now.status}`,
        last,
      );
      if (r !== rank && r >= 0)
        ctx.coverage.transition("recalibration", String(ORDER[rank]), String(now.status));
      ctx.expect(
        Number(now.progress) >= progress,
        "recalibrate/status-url",
        `progress fell from ${progress} to ${now.progress}`,
        last,
      );
      rank = r;
      progress = Number(now.progress);
      if (r >= 2 || ctx.target.isSimulator) return r >= 2;
      // A deployment's clock is not the kit's: the replay of the key is the other view of the same
      // operation, and the two must agree on whether it has finished. The operation may finish between
      // the read and the replay, so a replay that says it has is set against a read made after it.
      const replay = await send();
      if (replay.status !== 200) return false;
      last = await read();
      const after = String(last.body?.data?.operation?.status);
      if (ORDER.indexOf(after) >= 2) ctx.coverage.transition("recalibration", String(ORDER[rank]), after);
      rank = Math.max(rank, ORDER.indexOf(after));
      disagreed = !ctx.expect(
        ORDER.indexOf(after) >= 2,
        "recalibrate/status-url",
        `the replay of its key answered 200 with ${replay.body?.data?.operation?.status}; statusUrl read after it still says ${after} for ${op.id}`,
        last,
      );
      return true;
    },
    1_000,
    "recalibration",
  );
  return { done, last, rank, disagreed };
}
