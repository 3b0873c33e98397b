import { beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "../../../testing/harness.ts";
import { expectAudienceIdErrors, expectError, harness, VIEWS } from "../../../testing/harness.ts";
import { MANAGER_ONLY_MESSAGE } from "./collaborators.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const listPath = (handle: string) => `/api/v1/audiences/${h.id("audiences", handle)}/collaborators`;
const removePath = (handle: string, userId: string) => `${listPath(handle)}/${userId}`;

describe("GET /audiences/{audienceId}/collaborators", () => {
  it("lists accepted collaborators with their user record's email and name, without the owner or pending invitations", async () => {
    const r = await h.call("GET", listPath("main"));
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toContain("no-store");
    const rows = r.body.data as {
      userId: string;
      email: string;
      name: string;
      role: string;
      joinedAt: string;
    }[];
    expect(rows.map((c) => c.userId).sort()).toEqual(
      [h.id("users", "admin"), h.id("users", "member")].sort(),
    );
    for (const [handle, role] of [
      ["admin", "admin"],
      ["member", "member"],
    ] as const) {
      const row = rows.find((c) => c.userId === h.id("users", handle));
      const u = h.user(handle);
      expect(row).toEqual({
        userId: u.id,
        email: u.email,
        name: u.name,
        role,
        joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
    expect(rows.map((c) => c.userId)).not.toContain(h.id("users", "owner"));
    expect(rows.map((c) => c.userId)).not.toContain(h.id("users", "outsider"));
  });

  it("orders oldest first, with the user ID breaking ties", async () => {
    const main = h.audience("main");
    const t = h.sim.clock.now();
    main.collaborators.push(
      {
        userId: h.user("solo").id,
        role: "member",
        status: "accepted",
        invitedAt: t - 9e8,
        joinedAt: t - 8e8,
      },
      { userId: h.user("sso").id, role: "admin", status: "accepted", invitedAt: t - 2e9, joinedAt: t - 1e9 },
    );
    const rows = (await h.call("GET", listPath("main"))).body.data as { userId: string; joinedAt: string }[];
    const keys = rows.map((c) => [Date.parse(c.joinedAt), c.userId] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    expect(keys).toEqual(sorted);
    expect(rows[0]?.userId).toBe(h.user("sso").id);
    expect(rows).toHaveLength(4);
  });

  it("answers an empty list when nobody accepted an invitation", async () => {
    const r = await h.call("GET", listPath("private"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [] });
  });

  it("lets a direct admin list", async () => {
    const r = await h.call("GET", listPath("main"), { as: "admin" });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(2);
  });

  // Everyone who views an Audience but does not manage it: all viewers but main's owner and direct admin.
  const nonManagers = VIEWS.filter(([who, aud]) => aud !== "main" || (who !== "owner" && who !== "admin"));
  it.each(nonManagers)("answers 403 COLLABORATORS_MANAGER_ONLY to %s, who can view %s", async (who, aud) => {
    const r = await h.call("GET", listPath(aud), { as: who });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      statusMessage: MANAGER_ONLY_MESSAGE,
      data: { code: "COLLABORATORS_MANAGER_ONLY" },
    });
  });

  it.each([
    ["outsider (whose invitation is still pending)", "outsider", "main"],
    ["a stranger", "solo", "private"],
  ])("answers 404 to %s", async (_n, who, aud) => {
    const r = await h.call("GET", listPath(aud), { as: who });
    expectError(r, 404, "Audience not found");
  });

  it("answers 404 for a missing Audience and 400 for a malformed ID", async () => {
    await expectAudienceIdErrors(h, (id) => `/api/v1/audiences/${id}/collaborators`);
  });
});

describe("DELETE /audiences/{audienceId}/collaborators/{userId}", () => {
  it("removes an accepted collaborator, who loses access at once", async () => {
    const r = await h.call("DELETE", removePath("main", h.id("users", "member")));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { success: true } });
    const list = (await h.call("GET", listPath("main"))).body.data as { userId: string }[];
    expect(list.map((c) => c.userId)).toEqual([h.id("users", "admin")]);
    // The former member can no longer even see the Audience.
    expect((await h.call("GET", listPath("main"), { as: "member" })).status).toBe(404);
  });

  it("also revokes the person's pending invitations for this Audience only", async () => {
    const main = h.audience("main");
    const priv = h.audience("private");
    const admin = h.user("admin").id;
    const t = h.sim.clock.now();
    main.collaborators.push({
      userId: admin,
      role: "member",
      status: "pending",
      invitedAt: t,
      joinedAt: null,
    });
    priv.collaborators.push({
      userId: admin,
      role: "member",
      status: "pending",
      invitedAt: t,
      joinedAt: null,
    });
    const r = await h.call("DELETE", removePath("main", admin));
    expect(r.status).toBe(200);
    expect(main.collaborators.filter((c) => c.userId === admin)).toEqual([]);
    expect(priv.collaborators.filter((c) => c.userId === admin)).toHaveLength(1);
    // Others' entries are untouched, including the outsider's pending invitation.
    expect(main.collaborators.map((c) => [c.userId, c.status])).toEqual([
      [h.user("member").id, "accepted"],
      [h.user("outsider").id, "pending"],
    ]);
  });

  it("lets a direct admin remove another collaborator", async () => {
    const r = await h.call("DELETE", removePath("main", h.id("users", "member")), { as: "admin" });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(true);
  });

  it.each([
    "owner",
    "admin",
  ])("refuses to remove the owner (asked by %s) with 400 COLLABORATOR_IS_OWNER", async (who) => {
    const before = h.snapshot();
    const r = await h.call("DELETE", removePath("main", h.id("users", "owner")), { as: who });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      statusMessage: "The owner cannot be removed",
      data: { code: "COLLABORATOR_IS_OWNER" },
    });
    expect(h.snapshot()).toBe(before);
  });

  it.each([
    ["a person with only a pending invitation", "outsider"],
    ["a person with no relation to the Audience", "solo"],
    ["a team member (not a direct collaborator)", "teammate"],
  ])("answers 404 Collaborator not found for %s and changes nothing", async (_n, who) => {
    await h.refused("DELETE", removePath("main", h.id("users", who)), {}, 404, "Collaborator not found");
  });

  it("answers 404 for an unknown user ID", async () => {
    const r = await h.call("DELETE", removePath("main", "0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a"));
    expect(r.status).toBe(404);
  });

  it.each([
    ["member", "main", 403],
    ["teammate", "main", 403],
    ["studyViewer", "main", 403],
    ["outsider", "main", 404],
    ["solo", "private", 404],
  ] as const)("answers %s on %s with %i and changes nothing", async (who, aud, status) => {
    const before = h.snapshot();
    const r = await h.call("DELETE", removePath(aud, h.id("users", "admin")), { as: who });
    expect(r.status).toBe(status);
    if (status === 403) expect(r.body.data).toEqual({ code: "COLLABORATORS_MANAGER_ONLY" });
    else expect(r.body.statusMessage).toBe("Audience not found");
    expect(h.snapshot()).toBe(before);
  });

  it.each([
    ["not-a-uuid", "Invalid user ID format"],
    ["", "User ID is required"],
  ])("answers 400 for user ID %j: %s", async (userId, message) => {
    const r = await h.call("DELETE", removePath("main", userId));
    expectError(r, 400, message);
  });

  it("answers 400 for a malformed Audience ID", async () => {
    const r = await h.call("DELETE", `/api/v1/audiences/xyz/collaborators/${h.id("users", "admin")}`);
    expectError(r, 400, "Invalid audience ID format");
  });
});
