/**
 * The README's recipes (examples/*.json) and what each promises, read back through the public API: the
 * same checks whichever way the recipe was loaded (a reset, a sandbox, MSW, the command line).
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { Manifest } from "../src/core/world/manifest.ts";

export const EXAMPLES = new URL("../examples/", import.meta.url);

/** A world being checked: its manifest, calls as a handle's user, and the virtual clock. */
export interface RecipeWorld {
  manifest: Manifest;
  call(method: string, path: string, as: string, body?: unknown): Promise<{ status: number; body: any }>;
  advance(ms: number): Promise<void>;
}

export interface Recipe {
  file: string;
  document: Record<string, unknown>;
  check(w: RecipeWorld): Promise<void>;
}

const id = (w: RecipeWorld, section: "audiences" | "minds" | "formations", handle: string): string => {
  const entry = (w.manifest[section] as Record<string, { id: string }>)[handle];
  if (!entry) throw new Error(`no ${section} handle ${handle}`);
  return entry.id;
};
const audience = (w: RecipeWorld, handle: string) => `/api/v1/audiences/${id(w, "audiences", handle)}`;

const checks: Record<string, Recipe["check"]> = {
  "empty-new-account.json": async (w) => {
    expect(Object.keys(w.manifest.users)).toEqual(["newbie"]);
    expect(w.manifest).toMatchObject({ audiences: {}, minds: {}, formations: {} });
    expect(w.manifest.users.newbie).toMatchObject({ plan: "free", subscriptionActive: false });
    expect((await w.call("GET", "/api/v1/auth/me", "newbie")).body).toEqual({
      id: w.manifest.users.newbie?.id,
    });
    // Key management needs an active subscription, which a new free account has not.
    expect((await w.call("GET", "/api/v1/api-keys", "newbie")).status).toBe(403);
  },
  "plan-limit.json": async (w) => {
    const add = (to: string, mind: string) =>
      w.call("POST", `${audience(w, to)}/members`, "freebie", { mindId: id(w, "minds", mind) });
    const full = await add("full", "publicMind");
    expect(full.status).toBe(403);
    expect(full.body.data).toMatchObject({ code: "PLAN_LIMIT", currentPlan: "free", limit: 25, current: 25 });
    expect((await add("almostFull", "publicMind")).body).toEqual({ data: { added: 1 } });
    expect((await w.call("GET", audience(w, "almostFull"), "freebie")).body.data.mindCount).toBe(25);
    expect((await add("almostFull", "anotherPublicMind")).status).toBe(403);
  },
  "failed-formation.json": async (w) => {
    const f = await w.call(
      "GET",
      `${audience(w, "buyers")}/formations/${id(w, "formations", "languages")}`,
      "owner",
    );
    expect(f.status).toBe(200);
    expect(f.body.data).toMatchObject({ name: "Programming languages", status: "failed", subgroups: [] });
  },
  "work-in-flight.json": async (w) => {
    const exportStatus = async () =>
      (await w.call("GET", `${audience(w, "pharmacists")}/export-status?format=docx`, "owner")).body.data
        .status;
    const calibrating = async () =>
      (await w.call("GET", audience(w, "pharmacists"), "owner")).body.data.calibration.active;
    expect(await exportStatus()).toBe("running");
    expect(await calibrating()).toBe(true);
    await w.advance(60_000);
    expect(await exportStatus()).toBe("ready");
    expect(await calibrating()).toBe(false);
  },
  "partner-staging.json": async (w) => {
    // The default scenario's handles are all there, beside the partner's.
    expect(Object.keys(w.manifest.users)).toEqual(
      expect.arrayContaining(["owner", "teammate", "partner", "partnerMate"]),
    );
    expect(w.manifest.audiences.main?.owner).toBe("owner");
    for (const handle of ["partnerShared", "partnerDraft", "partnerEmpty"])
      expect((await w.call("GET", audience(w, handle), "partner")).status).toBe(200);
    const shared = await w.call("GET", audience(w, "partnerShared"), "partnerMate");
    expect(shared.body.data).toMatchObject({ currentMemberRole: "team_member", mindCount: 15 });
    expect((await w.call("GET", audience(w, "partnerDraft"), "partnerMate")).status).toBe(404);
    expect((await w.call("GET", audience(w, "partnerShared"), "owner")).status).toBe(404);
  },
  "shared-viewer.json": async (w) => {
    const shared = await w.call("GET", audience(w, "shared"), "teammate");
    expect(shared.status).toBe(200);
    expect(shared.body.data.currentMemberRole).toBe("team_member");
    expect((await w.call("GET", audience(w, "private"), "teammate")).status).toBe(404);
    const managers = await w.call("GET", `${audience(w, "shared")}/collaborators`, "teammate");
    expect(managers.status).toBe(403);
    const unshare = await w.call("PUT", audience(w, "shared"), "teammate", {
      name: "x",
      isSharedWithTeam: false,
    });
    expect(unshare.status).toBe(403);
    expect(unshare.body.data.code).toBe("TEAM_SHARE_OWNER_ONLY");
  },
};

export const RECIPES: readonly Recipe[] = Object.entries(checks).map(([file, check]) => ({
  file,
  document: JSON.parse(readFileSync(new URL(file, EXAMPLES), "utf8")),
  check,
}));
