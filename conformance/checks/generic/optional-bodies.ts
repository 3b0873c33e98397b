/**
 * Optional request bodies: every operation whose `requestBody` is not required is served without one (the
 * description: "Optional; an empty body is accepted."). Read from openapi.json, so a body made optional
 * later is covered with no change here. What a call makes (a key, a copy) is deleted after the check.
 */

import { operations } from "../../lib/description/contract.ts";
import { realParams } from "../../lib/properties/resources.ts";
import { check } from "../../lib/running/context.ts";
import {
  DUPLICATOR_NEEDS,
  deleteAudienceLater,
  deleteKeyLater,
  duplicator,
  ok,
} from "../../lib/running/helpers.ts";

export const optionalBodies = check("generic/optional-bodies", ["input/optional-body"], {
  needs: { roles: ["owner", ...(DUPLICATOR_NEEDS.roles ?? [])], audiences: ["main", "public"] },
  mutates: true,
  async run(ctx) {
    for (const o of operations().filter((x) => x.bodySchemaRef !== null && !x.bodyRequired)) {
      // A copy is made by who may copy without running into a Mind cap; everything else by the owner.
      const who = o.operationId === "duplicateAudience" ? duplicator(ctx) : null;
      const params = who ? { audienceId: who.audienceId } : realParams(o, ctx.target);
      if (typeof params === "string") continue;
      const ex = await ctx.call({ op: o.operationId, params, as: ctx.as(who?.role ?? "owner") });
      if (ok(ex) && o.operationId === "createApiKey") deleteKeyLater(ctx, ex.body?.id);
      if (ok(ex) && who) deleteAudienceLater(ctx, ex.body?.data?.id, who.role);
      ctx.expect(ok(ex), "input/optional-body", `${o.operationId} without a body answered ${ex.status}`, ex);
    }
  },
});
