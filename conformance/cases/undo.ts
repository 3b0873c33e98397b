/**
 * What a success made, taken back right after its case: a key, a copy, a follow, a Formation, a checkout
 * session. A case that expects a refusal may meet a server that does the work anyway; what that made is
 * taken back the same way, so the next case runs in the world the cases assume.
 */
import type { Credentials, Exchange } from "../lib/http/http.ts";
import type { CheckContext } from "../lib/running/context.ts";
import type { CaseWorld } from "./case.ts";

type Undo = (ctx: CheckContext) => Promise<unknown>;

const ok = (ex: Exchange) => ex.status >= 200 && ex.status < 300;
const idIn = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** How to take back what a successful `op` made, or null when it made nothing to take back. */
export function undoOf(op: string, ex: Exchange, as: Credentials | null, w: CaseWorld): Undo | null {
  if (!ok(ex) || !as) return null;
  const audienceId = ex.url.match(/\/audiences\/([^/?]+)/)?.[1];
  switch (op) {
    case "createApiKey": {
      const keyId = idIn(ex.body?.id);
      return keyId ? (ctx) => ctx.call({ op: "deleteApiKey", params: { keyId }, as }) : null;
    }
    case "duplicateAudience": {
      const copy = idIn(ex.body?.data?.id);
      return copy ? (ctx) => ctx.call({ op: "deleteAudience", params: { audienceId: copy }, as }) : null;
    }
    case "followAudience":
      return audienceId
        ? (ctx) =>
            ctx.call({ op: "unfollowAudience", params: { audienceId: decodeURIComponent(audienceId) }, as })
        : null;
    case "createFormation": {
      const formationId = idIn(ex.body?.data?.id);
      if (!formationId || !audienceId) return null;
      const params = { audienceId: decodeURIComponent(audienceId), formationId };
      return async (ctx) => {
        const gone = await ctx.call({ op: "deleteFormation", params, as });
        // A Formation its maker may not delete (a server that made it shared for a viewer): the owner may.
        if (gone.status === 404 && w.info.keys.owner)
          await ctx.call({ op: "deleteFormation", params, as: ctx.as("owner") });
      };
    }
    case "createCheckoutSession": {
      const id = idIn(ex.body?.id);
      return id ? (ctx) => ctx.call({ op: "cancelCheckoutSession", params: { id }, as }) : null;
    }
    default:
      return null;
  }
}
