import { beforeEach, describe, expect, it } from "vitest";
import { expectError, type Harness, harness, live, NOT_MAIN_OWNERS } from "../../../testing/harness.ts";
import { AUDIENCE_MEMBER_CAP } from "../../core/world/plans.ts";
import type { FormationRecord } from "../../core/world/state.ts";
import { BUILD_TOTAL_MS } from "../formations/formation-builds.ts";
import { QUEUE_MS, RUN_MS } from "../progress/training.ts";
import { MAX_MIND_IDS, MEMBERS_EFFECTS_MS } from "./members.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const membersPath = (handle: string) => `/api/v1/audiences/${h.id("audiences", handle)}/members`;
const memberPath = (handle: string, mindId: string) => `${membersPath(handle)}/${mindId}`;
/** The publisher's public Minds (members of `public`), which anyone may add to their own Audiences. */
const publicMinds = (): string[] => [...h.audience("public").memberIds];
const placedIn = (f: FormationRecord): string[] => f.subgroups.flatMap((g) => g.members.map((m) => m.mindId));

describe("POST /audiences/{audienceId}/members", () => {
  it("adds one Mind by mindId, bumps updatedAt, and answers at once", async () => {
    const a = h.audience("empty");
    const before = a.updatedAt;
    h.sim.advance(1000);
    const r = await h.call("POST", membersPath("empty"), { body: { mindId: h.id("minds", "ownLoose") } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { added: 1 } });
    expect(r.headers.get("cache-control")).toContain("no-store");
    expect(a.memberIds).toEqual([h.id("minds", "ownLoose")]);
    expect(a.updatedAt).toBeGreaterThan(before);
  });

  it("adds the caller's own and public Minds by mindIds; added counts distinct requested IDs", async () => {
    const ids = [h.id("minds", "ownLoose"), h.id("minds", "publicMind"), h.id("minds", "ownLoose")];
    const r = await h.call("POST", membersPath("empty"), { body: { mindIds: ids } });
    expect(r.status).toBe(200);
    expect(r.body.data.added).toBe(2);
    expect(h.audience("empty").memberIds).toEqual([h.id("minds", "ownLoose"), h.id("minds", "publicMind")]);
  });

  it("is idempotent: already-present Minds are ignored, and added still counts the distinct requested IDs", async () => {
    const main = h.audience("main");
    const existing = main.memberIds.slice(0, 3);
    const before = [...main.memberIds];
    const updatedAt = main.updatedAt;
    const r = await h.call("POST", membersPath("main"), { body: { mindIds: [...existing, existing[0]] } });
    expect(r.status).toBe(200);
    expect(r.body.data.added).toBe(3);
    expect(main.memberIds).toEqual(before);
    expect(main.updatedAt).toBe(updatedAt);

    const mixed = [...existing, h.id("minds", "ownLoose")];
    const first = await h.call("POST", membersPath("main"), { body: { mindIds: mixed } });
    const again = await h.call("POST", membersPath("main"), { body: { mindIds: mixed } });
    expect([first.body.data.added, again.body.data.added]).toEqual([4, 4]);
    expect(main.memberIds).toEqual([...before, h.id("minds", "ownLoose")]);
  });

  it("treats Mind IDs case-insensitively", async () => {
    const id = h.id("minds", "ownLoose");
    const r = await h.call("POST", membersPath("empty"), { body: { mindIds: [id, id.toUpperCase()] } });
    expect(r.body.data.added).toBe(1);
    expect(h.audience("empty").memberIds).toEqual([id]);
  });

  it("is served under /v1 too", async () => {
    const r = await h.call("POST", `/v1/audiences/${h.id("audiences", "empty")}/members`, {
      body: { mindId: h.id("minds", "publicMind") },
    });
    expect(r.status).toBe(200);
  });

  describe("mindId wins when both fields are present", () => {
    it.each([
      ["a malformed mindIds", () => "garbage"],
      ["an empty mindIds", () => []],
      ["mindIds with invalid UUIDs", () => ["nope", 42]],
      ["mindIds with over 1000 IDs", () => Array.from({ length: MAX_MIND_IDS + 1 }, () => "nope")],
      ["mindIds naming an inaccessible Mind", () => [h.id("minds", "foreignMind")]],
    ])("ignores %s", async (_name, mindIds) => {
      const body = { mindId: h.id("minds", "ownLoose"), mindIds: mindIds() };
      const r = await h.call("POST", membersPath("empty"), { body });
      expect(r.status).toBe(200);
      expect(r.body.data.added).toBe(1);
      expect(h.audience("empty").memberIds).toEqual([h.id("minds", "ownLoose")]);
    });

    it("still refuses an invalid mindId even when mindIds is valid", async () => {
      await h.refused(
        "POST",
        membersPath("empty"),
        {
          body: { mindId: "not-a-uuid", mindIds: [h.id("minds", "ownLoose")] },
        },
        400,
        "Invalid mind ID format",
      );
    });

    it("refuses a null mindId rather than falling back to mindIds (the contract types it as a UUID)", async () => {
      const r = await h.call("POST", membersPath("empty"), {
        body: { mindId: null, mindIds: [h.id("minds", "publicMind")] },
      });
      expectError(r, 400, "Invalid mind ID format");
      expect(h.audience("empty").memberIds).toEqual([]);
    });
  });

  describe("accepts at most 1000 IDs, counted before deduplication", () => {
    it("accepts exactly 1000 (copies of a few valid IDs)", async () => {
      const few = [...publicMinds().slice(0, 3), h.id("minds", "ownLoose")];
      const mindIds = Array.from({ length: MAX_MIND_IDS }, (_, i) => few[i % few.length] as string);
      const r = await h.call("POST", membersPath("empty"), { body: { mindIds } });
      expect(r.status).toBe(200);
      expect(r.body.data.added).toBe(4);
      expect(h.audience("empty").memberIds).toEqual(few);
    });

    it("refuses 1001 even when they name one Mind", async () => {
      const before = h.snapshot();
      const mindIds = Array.from({ length: MAX_MIND_IDS + 1 }, () => h.id("minds", "ownLoose"));
      const r = await h.call("POST", membersPath("empty"), { body: { mindIds } });
      expectError(r, 400, "At most 1000 Mind IDs are allowed");
      expect(h.snapshot()).toBe(before);
    });
  });

  it.each([
    ["malformed JSON", { raw: '{"mindId": ' }, "Invalid JSON body"],
    ["no body", {}, "mindId or mindIds is required"],
    ["an empty object", { body: {} }, "mindId or mindIds is required"],
    ["unrelated fields only", { body: { name: "x" } }, "mindId or mindIds is required"],
    ["both fields null", { body: { mindId: null, mindIds: null } }, "Invalid mind ID format"],
    ["an empty mindIds", { body: { mindIds: [] } }, "At least one Mind ID is required"],
    ["a malformed mindId", { body: { mindId: "abc" } }, "Invalid mind ID format"],
    ["a numeric mindId", { body: { mindId: 42 } }, "Invalid mind ID format"],
    ["an empty-string mindId", { body: { mindId: "" } }, "Invalid mind ID format"],
    [
      "a malformed ID in mindIds",
      { body: { mindIds: ["8d9e4a1c-0000-4000-8000-000000000000", "x"] } },
      "Invalid mind ID format",
    ],
    ["a non-string ID in mindIds", { body: { mindIds: [7] } }, "Invalid mind ID format"],
    [
      "a string mindIds",
      { body: { mindIds: "8d9e4a1c-0000-4000-8000-000000000000" } },
      "mindIds must be an array of Mind IDs",
    ],
    ["an array body", { body: ["8d9e4a1c-0000-4000-8000-000000000000"] }, "Invalid request body"],
    ["a string body", { body: "hello" }, "Invalid request body"],
    ["a null body", { raw: "null" }, "Invalid request body"],
    [
      "the retired sparkId",
      { body: { sparkId: "8d9e4a1c-0000-4000-8000-000000000000" } },
      "sparkId is no longer supported; use mindId",
    ],
    [
      "the retired sparkIds",
      { body: { sparkIds: ["8d9e4a1c-0000-4000-8000-000000000000"] } },
      "sparkIds is no longer supported; use mindIds",
    ],
  ] as const)("refuses %s with 400 and changes nothing", async (_name, opts, message) => {
    const r = await h.refused("POST", membersPath("empty"), opts, 400);
    expect(r.body).toMatchObject({ statusCode: 400, statusMessage: message, message, error: true });
  });

  it("ignores retired field names when the current ones are present", async () => {
    const r = await h.call("POST", membersPath("empty"), {
      body: { sparkIds: ["x"], sparkId: 1, mindIds: [h.id("minds", "ownLoose")] },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.added).toBe(1);
  });

  it("answers 413 for a body over 64 KiB and changes nothing", async () => {
    const before = h.snapshot();
    const body = { mindId: h.id("minds", "ownLoose"), padding: "x".repeat(64 * 1024) };
    const r = await h.call("POST", membersPath("empty"), { body });
    expect(r.status).toBe(413);
    expect(r.body.statusCode).toBe(413);
    expect(h.snapshot()).toBe(before);
  });

  it.each([
    ["an inaccessible Mind (private, someone else's)", "foreignMind"],
    ["an unknown Mind", null],
  ])("adds nothing when any Mind is %s", async (_name, handle) => {
    const bad = handle ? h.id("minds", handle) : "0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a";
    await h.refused(
      "POST",
      membersPath("empty"),
      {
        body: { mindIds: [h.id("minds", "ownLoose"), h.id("minds", "publicMind"), bad] },
      },
      404,
      "One or more Minds not found or not accessible",
    );
  });

  it.each([
    ["admin", "main"],
    ["member", "main"],
    ["teammate", "main"],
    ["studyViewer", "main"],
    ["outsider", "main"],
    ["owner", "public"],
    ["publisher", "main"],
  ])("answers 404 Audience not found to %s on %s, before looking at the body", async (user, aud) => {
    const before = h.snapshot();
    for (const opts of [
      { body: { mindId: h.id("minds", "publicMind") } },
      { raw: "{not json" },
      { body: { mindIds: [] } },
      { body: { padding: "x".repeat(70 * 1024) } },
    ]) {
      const r = await h.call("POST", membersPath(aud), { as: user, ...opts });
      expectError(r, 404, "Audience not found");
    }
    expect(h.snapshot()).toBe(before);
  });

  it("answers 404 for an Audience that does not exist, and 400 for a malformed Audience ID", async () => {
    const missing = await h.call("POST", "/api/v1/audiences/0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a/members", {
      body: { mindId: h.id("minds", "ownLoose") },
    });
    expectError(missing, 404, "Audience not found");
    const malformed = await h.call("POST", "/api/v1/audiences/nope/members", {
      body: { mindId: h.id("minds", "ownLoose") },
    });
    expectError(malformed, 400, "Invalid audience ID format");
  });

  describe("member cap", () => {
    it("refuses a new member of an Audience at the cap with a PlanLimitError, adding nothing", async () => {
      expect(h.audience("atCap").memberIds).toHaveLength(AUDIENCE_MEMBER_CAP.premium);
      const before = h.snapshot();
      const r = await h.call("POST", membersPath("atCap"), {
        body: { mindIds: [h.id("minds", "ownLoose"), h.audience("atCap").memberIds[0]] },
      });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({
        statusCode: 403,
        statusMessage: "Individual plan limit reached",
        error: true,
        data: {
          code: "PLAN_LIMIT",
          limitType: "groupMembers",
          currentPlan: "premium",
          limit: 100,
          current: 100,
        },
      });
      expect(h.snapshot()).toBe(before);
    });

    it("still accepts re-adding existing members at the cap (no new memberships)", async () => {
      const existing = h.audience("atCap").memberIds.slice(0, 5);
      const r = await h.call("POST", membersPath("atCap"), { body: { mindIds: existing } });
      expect(r.status).toBe(200);
      expect(r.body.data.added).toBe(5);
      expect(h.audience("atCap").memberIds).toHaveLength(100);
    });

    it("counts only new memberships against the room left", async () => {
      const gone = h.audience("atCap").memberIds[0] as string;
      expect((await h.call("DELETE", memberPath("atCap", gone))).status).toBe(204);
      const two = await h.call("POST", membersPath("atCap"), {
        body: { mindIds: [h.id("minds", "ownLoose"), h.id("minds", "publicMind")] },
      });
      expect(two.status).toBe(403);
      expect(two.body.data).toMatchObject({ limit: 100, current: 99 });
      const one = await h.call("POST", membersPath("atCap"), {
        body: { mindIds: [h.id("minds", "ownLoose"), h.audience("atCap").memberIds[0]] },
      });
      expect(one.status).toBe(200);
      expect(h.audience("atCap").memberIds).toHaveLength(100);
    });

    it("follows an account-specific override of the cap", async () => {
      const owner = h.user("owner");
      if (!owner) throw new Error("no owner");
      owner.limits.groupMembers = 1;
      const first = await h.call("POST", membersPath("empty"), {
        body: { mindId: h.id("minds", "ownLoose") },
      });
      expect(first.status).toBe(200);
      const second = await h.call("POST", membersPath("empty"), {
        body: { mindId: h.id("minds", "publicMind") },
      });
      expect(second.status).toBe(403);
      expect(second.body.data).toMatchObject({ limit: 1, current: 1, currentPlan: "premium" });
    });
  });

  describe("background effects", () => {
    it("sorts added Minds into the ready Formations after a moment, never into failed ones", async () => {
      const ready = h.formation("mainReady");
      const failed = h.formation("mainFailed");
      const added = [h.id("minds", "ownLoose"), h.id("minds", "publicMind")];
      const r = await h.call("POST", membersPath("main"), { body: { mindIds: added } });
      expect(r.status).toBe(200);
      for (const id of added) expect(placedIn(ready)).not.toContain(id);
      h.sim.advance(MEMBERS_EFFECTS_MS);
      for (const id of added) {
        expect(placedIn(ready).filter((m) => m === id)).toHaveLength(1);
        expect(placedIn(failed)).not.toContain(id);
      }
    });

    it("places one added Mind once, however often it comes and goes", async () => {
      const id = h.id("minds", "ownLoose");
      const ready = h.formation("mainReady");
      for (let i = 0; i < 3; i++) {
        expect((await h.call("POST", membersPath("main"), { body: { mindId: id } })).status).toBe(200);
        h.sim.advance(MEMBERS_EFFECTS_MS);
        expect(placedIn(ready).filter((m) => m === id)).toHaveLength(1);
        // A Formation's count is the sum of its subgroups' because no Mind sits in two of them.
        expect(new Set(placedIn(ready)).size).toBe(placedIn(ready).length);
        expect((await h.call("DELETE", memberPath("main", id))).status).toBe(204);
        h.sim.advance(MEMBERS_EFFECTS_MS);
        expect(placedIn(ready)).not.toContain(id);
      }
      // Added, removed and added again before the effects run: two placements of the same Mind are due.
      await h.call("POST", membersPath("main"), { body: { mindId: id } });
      await h.call("DELETE", memberPath("main", id));
      await h.call("POST", membersPath("main"), { body: { mindId: id } });
      h.sim.advance(MEMBERS_EFFECTS_MS);
      expect(placedIn(ready).filter((m) => m === id)).toHaveLength(1);
    });

    it("does not place a Mind that was removed again before the placement ran", async () => {
      const id = h.id("minds", "ownLoose");
      await h.call("POST", membersPath("main"), { body: { mindId: id } });
      await h.call("DELETE", memberPath("main", id));
      h.sim.advance(MEMBERS_EFFECTS_MS);
      expect(placedIn(h.formation("mainReady"))).not.toContain(id);
    });

    it("seeds default Formations, created by the owner, when the Audience has none", async () => {
      const emptyId = h.id("audiences", "empty");
      const ofEmpty = () => [...h.sim.state.formations.values()].filter((f) => f.audienceId === emptyId);
      expect(ofEmpty()).toHaveLength(0);
      const r = await h.call("POST", membersPath("empty"), { body: { mindIds: publicMinds() } });
      expect(r.status).toBe(200);
      expect(ofEmpty()).toHaveLength(0);
      h.sim.advance(MEMBERS_EFFECTS_MS);
      const seeded = ofEmpty();
      expect(seeded.length).toBeGreaterThan(0);
      for (const f of seeded) {
        expect(f).toMatchObject({
          creatorId: h.id("users", "owner"),
          visibility: "shared",
          status: "building",
        });
        expect(f.autoDimension).not.toBeNull();
      }
      h.sim.advance(BUILD_TOTAL_MS);
      for (const f of ofEmpty()) expect(["ready", "failed"]).toContain(f.status);
      // Seeding happens once: a later addition does not add more.
      const count = ofEmpty().length;
      await h.call("POST", membersPath("empty"), { body: { mindId: h.id("minds", "ownLoose") } });
      h.sim.advance(MEMBERS_EFFECTS_MS);
      expect(ofEmpty()).toHaveLength(count);
      // Deleted ones do not exist: once they are gone, the next addition seeds again.
      for (const f of ofEmpty()) {
        const d = await h.call("DELETE", `/api/v1/audiences/${emptyId}/formations/${f.id}`);
        expect(d.status).toBe(204);
      }
      await h.call("DELETE", memberPath("empty", h.id("minds", "ownLoose")));
      await h.call("POST", membersPath("empty"), { body: { mindId: h.id("minds", "ownLoose") } });
      h.sim.advance(MEMBERS_EFFECTS_MS);
      expect(ofEmpty().filter((f) => f.deletedAt === null).length).toBeGreaterThan(0);
    });

    it("retrains members whose training failed, but not those that failed for good", async () => {
      const [failedId, forGoodId] = h.audience("main").memberIds as [string, string];
      const failed = live(h.sim.state.minds, failedId);
      const forGood = live(h.sim.state.minds, forGoodId);
      failed.training = { ...failed.training, status: "failed", failedForGood: false, attempts: 1 };
      forGood.training = { ...forGood.training, status: "failed", failedForGood: true, attempts: 3 };
      await h.call("POST", membersPath("main"), { body: { mindId: h.id("minds", "ownLoose") } });
      expect(failed.training.status).toBe("failed");
      h.sim.advance(MEMBERS_EFFECTS_MS);
      expect(failed.training).toMatchObject({ status: "queued", beingRepaired: true });
      h.sim.advance(QUEUE_MS + RUN_MS);
      expect(failed.training).toMatchObject({ status: "completed", beingRepaired: false, attempts: 2 });
      expect(forGood.training).toMatchObject({ status: "failed", failedForGood: true, attempts: 3 });
    });
  });
});

describe("DELETE /audiences/{audienceId}/members/{mindId}", () => {
  it("removes the Mind from the Audience and from every subgroup at once; the Mind itself stays", async () => {
    const main = h.audience("main");
    const ready = h.formation("mainReady");
    const mindId = h.id("minds", "mainMember");
    expect(placedIn(ready)).toContain(mindId);
    h.sim.advance(1000);
    const updatedAt = main.updatedAt;
    const r = await h.call("DELETE", memberPath("main", mindId));
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(main.memberIds).not.toContain(mindId);
    for (const f of h.sim.state.formations.values()) {
      if (f.audienceId === main.id) expect(placedIn(f)).not.toContain(mindId);
    }
    expect(h.sim.state.minds.has(mindId)).toBe(true);
    expect(main.updatedAt).toBeGreaterThan(updatedAt);
  });

  it("answers 204 for a Mind that is not a member, changing nothing", async () => {
    const before = JSON.stringify(h.audience("main"));
    for (const id of [h.id("minds", "ownLoose"), "0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a"]) {
      const r = await h.call("DELETE", memberPath("main", id));
      expect(r.status).toBe(204);
    }
    expect(JSON.stringify(h.audience("main"))).toBe(before);
  });

  it("retrains failed members in the background", async () => {
    const [removed, failedId] = h.audience("private").memberIds as [string, string];
    const failed = live(h.sim.state.minds, failedId);
    failed.training = { ...failed.training, status: "failed", failedForGood: false };
    await h.call("DELETE", memberPath("private", removed));
    h.sim.advance(MEMBERS_EFFECTS_MS);
    expect(failed.training).toMatchObject({ status: "queued", beingRepaired: true });
  });

  it.each(NOT_MAIN_OWNERS)("answers 404 Audience not found to %s and changes nothing", async (user) => {
    await h.refused(
      "DELETE",
      memberPath("main", h.id("minds", "mainMember")),
      { as: user },
      404,
      "Audience not found",
    );
  });

  it.each([
    ["/api/v1/audiences/nope/members/0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a", "Invalid audience ID format"],
    ["MAIN/members/not-a-uuid", "Invalid mind ID format"],
  ])("DELETE %s answers 400 %s", async (path, message) => {
    const full = path.startsWith("MAIN")
      ? path.replace("MAIN", `/api/v1/audiences/${h.id("audiences", "main")}`)
      : path;
    const r = await h.call("DELETE", full);
    expectError(r, 400, message);
  });
});
