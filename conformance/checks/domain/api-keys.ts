/**
 * API keys and identity: `auth/me`, secrets never listed, key management by plan and SSO, a deleted
 * key refused at once, deleting the key in use.
 */

import { sortedDesc } from "../../lib/description/answers.ts";
import type { Role } from "../../lib/http/target.ts";
import { check } from "../../lib/running/context.ts";
import { deleteKeyLater, fresh, newKey, ok } from "../../lib/running/helpers.ts";

export const identity = check("domain/identity", ["keys/me"], {
  needs: { roles: ["owner"], users: ["owner"] },
  async run(ctx) {
    const ex = await ctx.call({ op: "getMe", as: ctx.as("owner") });
    ctx.expect(
      ex.body?.id === ctx.target.user("owner"),
      "keys/me",
      `id is ${JSON.stringify(ex.body?.id)}`,
      ex,
    );
  },
});

export const keySecrets = check(
  "domain/api-key-secrets",
  ["keys/secret-once", "keys/listing-order", "keys/own-account-only", "keys/last-used"],
  {
    needs: { roles: ["owner"] },
    mutates: true,
    async run(ctx) {
      const created = await newKey(ctx, "owner", "secret-check");
      ctx.requireStatus(created, 201, "keys/secret-once", "create");
      const { id, key } = created.body ?? {};
      if (typeof id === "string") deleteKeyLater(ctx, id);
      ctx.require(
        typeof key === "string" && key.startsWith("service_"),
        "keys/secret-once",
        "the creation response has no service_ key",
        created,
      );
      const me = await ctx.call({ op: "getMe", as: { key, label: "owner_new" } });
      ctx.expectStatus(me, 200, "keys/secret-once", "the new key");
      for (const role of ["owner", "teammate"] as Role[]) {
        if (!ctx.target.has(role)) continue;
        const list = await ctx.call({ op: "listApiKeys", as: ctx.as(role) });
        if (!ctx.expectStatus(list, 200, "keys/secret-once", `${role}'s key listing`)) continue;
        ctx.expect(
          !list.text.includes(key),
          "keys/secret-once",
          `the secret of the new key appears in ${role}'s listing`,
          list,
        );
        const items = Array.isArray(list.body) ? list.body : [];
        ctx.expect(
          !items.some((k: Record<string, unknown>) => "key" in k),
          "keys/secret-once",
          "a listed key carries a `key` field",
          list,
        );
        ctx.expect(
          sortedDesc(items.map((k: { createdAt: string }) => k.createdAt)),
          "keys/listing-order",
          "the listing is not ordered by createdAt descending",
          list,
        );
        if (role === "owner") {
          const listed = items.find((k: { id: string }) => k.id === id) as
            | { createdAt: string; lastUsedAt?: string | null }
            | undefined;
          ctx.expect(listed !== undefined, "keys/listing-order", "the new key is not listed", list);
          // The new key answered GET /auth/me above: its use shows in the listing.
          if (listed)
            ctx.expect(
              typeof listed.lastUsedAt === "string" &&
                Date.parse(listed.lastUsedAt) >= Date.parse(listed.createdAt),
              "keys/last-used",
              `the new key, used once, is listed with lastUsedAt ${JSON.stringify(listed.lastUsedAt)} (created ${listed.createdAt})`,
              list,
            );
        } else
          ctx.expect(
            !items.some((k: { id: string }) => k.id === id),
            "keys/own-account-only",
            "another account's listing shows the owner's new key",
            list,
          );
      }
    },
  },
);

export const keyAccess = check("domain/api-key-access", ["keys/subscription-sso", "keys/own-account-only"], {
  needs: { roles: ["owner", "outsider", "sso", "teammate"] },
  mutates: true,
  async run(ctx) {
    for (const spec of [{ op: "listApiKeys" }, { op: "createApiKey", json: {} }] as const) {
      const ex = await ctx.call({ ...spec, as: ctx.as("outsider") });
      if (ok(ex) && ex.body?.id) deleteKeyLater(ctx, ex.body.id, "outsider");
      ctx.expectStatus(ex, 403, "keys/subscription-sso", `${spec.op} without a subscription`);
    }
    const sso = await ctx.call({ op: "createApiKey", as: ctx.as("sso"), json: {} });
    if (ok(sso) && sso.body?.id) deleteKeyLater(ctx, sso.body.id, "sso");
    ctx.expectStatus(sso, 403, "keys/subscription-sso", "createApiKey on an SSO-linked account");
    const theirs = await newKey(ctx, "teammate", "not-yours");
    ctx.requireStatus(theirs, 201, "keys/subscription-sso", "a Team subscription creating a key");
    deleteKeyLater(ctx, theirs.body.id, "teammate");
    const del = await ctx.call({
      op: "deleteApiKey",
      params: { keyId: theirs.body.id },
      as: ctx.as("owner"),
    });
    ctx.expectStatus(del, 404, "keys/own-account-only", "deleting another account's key");
    const still = await ctx.call({ op: "getMe", as: { key: theirs.body.key, label: "teammate_new" } });
    ctx.expect(
      still.status === 200,
      "keys/own-account-only",
      "another account's key stopped working after a refused delete",
      still,
    );
  },
});

export const selfDelete = check("domain/api-key-self-delete", ["keys/delete-immediate"], {
  needs: { roles: ["owner"] },
  mutates: true,
  async run(ctx) {
    const created = await newKey(ctx, "owner", "self-delete");
    ctx.requireStatus(created, 201, "keys/delete-immediate", "creating the key to delete");
    const self = { key: created.body.key as string, label: "owner_new" };
    const del = await ctx.call({ op: "deleteApiKey", params: { keyId: created.body.id }, as: self });
    if (!ok(del)) deleteKeyLater(ctx, created.body.id);
    ctx.expect(
      del.status === 204 && del.text === "",
      "keys/delete-immediate",
      `self-delete answered ${del.status} with ${del.text.length} body bytes, not 204 empty`,
      del,
    );
    const after = await ctx.call({ op: "getMe", as: self });
    ctx.expectStatus(after, 401, "keys/delete-immediate", "the deleted key still");
    const again = await ctx.call({
      op: "deleteApiKey",
      params: { keyId: created.body.id },
      as: ctx.as("owner"),
    });
    ctx.expectStatus(again, 404, "keys/delete-immediate", "deleting it again");

    // Key rotation, as the description tells it: create a new key, switch over, delete the old one.
    const old = await newKey(ctx, "owner", "rotate-old");
    ctx.requireStatus(old, 201, "keys/delete-immediate", "creating the key to rotate");
    const oldKey = { key: old.body.key as string, label: "owner_old" };
    const next = await ctx.call({ op: "createApiKey", as: oldKey, json: { name: fresh("rotate-new") } });
    if (!ctx.expectStatus(next, 201, "keys/delete-immediate", "creating the new key with the old one")) {
      deleteKeyLater(ctx, old.body.id);
      return;
    }
    const newKeyCred = { key: next.body.key as string, label: "owner_rotated" };
    deleteKeyLater(ctx, next.body.id);
    const retired = await ctx.call({ op: "deleteApiKey", params: { keyId: old.body.id }, as: newKeyCred });
    if (!ctx.expectStatus(retired, 204, "keys/delete-immediate", "deleting the old key with the new one"))
      deleteKeyLater(ctx, old.body.id);
    ctx.expectStatus(
      await ctx.call({ op: "getMe", as: oldKey }),
      401,
      "keys/delete-immediate",
      "the old key",
    );
    const alive = await ctx.call({ op: "getMe", as: newKeyCred });
    ctx.expectStatus(alive, 200, "keys/delete-immediate", "the new key after the rotation");
  },
});

/** Who sees what of `main` and `private` and `public`: role, sharing fields, 404 where hidden. */
