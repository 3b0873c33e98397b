/**
 * API keys (description, "Identity and API keys"). Key management needs an active Premium or Team
 * subscription (403 `Forbidden`); SSO-linked accounts cannot create keys. Secrets are returned once, at
 * creation, and stored only as hashes.
 */

import { LIMITS } from "../../contract/limits.ts";
import type { ValidationIssue } from "../../contract/validate.ts";
import { badRequest, forbidden, notFound } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { ApiKeyRecord } from "../../core/world/state.ts";
import { iso, isoOrNull } from "../time.ts";
import { identityView } from "./dashboard.ts";

function requireSubscription(ctx: RequestContext): void {
  const u = ctx.caller;
  if (!u.subscriptionActive || (u.plan !== "premium" && u.plan !== "team")) throw forbidden("Forbidden");
}

function summary(k: ApiKeyRecord) {
  return { id: k.id, name: k.name, createdAt: iso(k.createdAt), lastUsedAt: isoOrNull(k.lastUsedAt) };
}

/** The description's messages for a bad `name`; anything else about the body is not a JSON object. */
function invalidName(issues: ValidationIssue[]) {
  if (issues.some((i) => i.path === "/name" && i.code === "x-max-trimmed-length")) {
    return badRequest(`name must be ${LIMITS.apiKeyName} characters or fewer`);
  }
  if (issues.some((i) => i.path === "/name")) return badRequest("name must be a string");
  return badRequest("Request body must be a JSON object");
}

export const apiKeys: ResourceModule = {
  view: identityView,
  routes: {
    listApiKeys: {
      // Each key's lastUsedAt moves with every request, so the list is read anew each time.
      pure: true,
      volatile: true,
      authorize: requireSubscription,
      handler: (ctx) => {
        const mine = [...ctx.state.apiKeys.values()].filter((k) => k.userId === ctx.caller.id);
        // Newest first; the ID breaks ties so the order is stable.
        mine.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
        return { status: 200, body: mine.map(summary) };
      },
    },
    createApiKey: {
      keysOnly: true,
      authorize: (ctx) => {
        requireSubscription(ctx);
        if (ctx.caller.sso) throw forbidden("API keys are disabled for this SSO-linked account");
      },
      invalidBody: invalidName,
      handler: (ctx) => {
        const raw = (ctx.body as { name?: string | null } | undefined)?.name;
        const name = typeof raw === "string" && raw.trim() !== "" ? raw.trim() : null;
        const key = ctx.ids.apiKeySecret();
        const record: ApiKeyRecord = {
          id: ctx.ids.cuid(),
          userId: ctx.caller.id,
          name,
          createdAt: ctx.clock.now(),
          lastUsedAt: null,
          hash: ctx.sha256(key),
        };
        ctx.state.apiKeys.set(record.id, record);
        ctx.state.apiKeyByHash.set(record.hash, record.id);
        return { status: 201, body: { id: record.id, name, createdAt: iso(record.createdAt), key } };
      },
    },
    deleteApiKey: {
      keysOnly: true,
      authorize: requireSubscription,
      handler: (ctx) => {
        const key = ctx.state.apiKeys.get(ctx.params.keyId ?? "");
        if (!key || key.userId !== ctx.caller.id) throw notFound("API key not found");
        ctx.state.apiKeys.delete(key.id);
        ctx.state.apiKeyByHash.delete(key.hash);
        return { status: 204 };
      },
    },
  },
};
