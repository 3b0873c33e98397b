/**
 * Deleting an Audience cascades to the member Minds the caller owns that no other Audience holds, and keeps
 * the ones another Audience holds. Minds are not served on their own, so what became of one is read
 * through the two answers that show it: the other Audience's members, and adding it again (404 once it is
 * gone). The sandbox is two private copies, whose Minds are the duplicator's own.
 */
import { check } from "../../lib/running/context.ts";
import {
  DUPLICATOR_NEEDS,
  duplicateAs,
  duplicator,
  fresh,
  memberIds,
  NO_DUPLICATOR,
} from "../../lib/running/helpers.ts";

export const deleteCascade = check("domain/audience-delete-cascade", ["audience/delete-cascade"], {
  needs: DUPLICATOR_NEEDS,
  mutates: true,
  concurrent: true,
  async run(ctx) {
    const who = duplicator(ctx);
    if (!who) return ctx.inconclusive(NO_DUPLICATOR);
    const as = ctx.as(who.role);
    const [a, b] = [
      await duplicateAs(ctx, who.audienceId, who.role, {}, fresh("cascade-a")),
      await duplicateAs(ctx, who.audienceId, who.role, {}, fresh("cascade-b")),
    ];
    ctx.requireStatus(a, 201, "audience/delete-cascade", "the first copy");
    ctx.requireStatus(b, 201, "audience/delete-cascade", "the second copy");
    const [aId, bId] = [a.body.data.id as string, b.body.data.id as string];
    const minds = await memberIds(ctx, aId, who.role);
    const [shared, alone] = minds;
    if (shared === undefined || alone === undefined)
      return ctx.inconclusive(
        `the copy lists ${minds.length} member(s): two are needed, one to share and one alone`,
      );
    const add = (mindId: string) =>
      ctx.call({ op: "addMembers", params: { audienceId: bId }, as, json: { mindId } });
    ctx.requireStatus(await add(shared), 200, "audience/delete-cascade", "adding a Mind of the first copy");
    const del = await ctx.call({ op: "deleteAudience", params: { audienceId: aId }, as });
    ctx.requireStatus(del, 204, "audience/delete-cascade", "deleting the first copy");
    const kept = await memberIds(ctx, bId, who.role);
    ctx.expect(
      kept.includes(shared),
      "audience/delete-cascade",
      `Mind ${shared}, also a member of another Audience, went with the deleted Audience`,
      del,
    );
    const again = await add(alone);
    ctx.expect(
      again.status === 404,
      "audience/delete-cascade",
      `Mind ${alone}, the caller's and in no other Audience, outlived the deleted Audience: adding it answered ${again.status}`,
      again,
    );
  },
});
