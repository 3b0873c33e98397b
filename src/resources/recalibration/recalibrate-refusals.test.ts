import { describe, expect, it } from "vitest";
import { expectError } from "../../../testing/harness.ts";
import {
  audience,
  detail,
  h,
  ownedBy,
  recalibrate,
  snapshot,
  withSimulator,
} from "../../../testing/recalibration.ts";
import { memberCap, mindCap } from "../../core/world/plans.ts";
import { OPERATION_MS } from "./records.ts";

describe("POST /audiences/{id}/recalibrate: refusals", () => {
  withSimulator();
  it.each(["admin", "member", "teammate", "studyViewer", "outsider"])("answers 404 to %s", async (as) => {
    const state = snapshot();
    const res = await recalibrate("main", { instruction: "Skew older" }, { as });
    expectError(res, 404, "Audience not found");
    expect(snapshot() === state).toBe(true);
  });

  it("answers 404 to a public viewer and for an unknown Audience; 400 for a malformed ID", async () => {
    expect((await recalibrate("public", {}, { as: "owner" })).status).toBe(404);
    const unknown = await h.call(
      "POST",
      "/api/v1/audiences/00000000-0000-4000-8000-000000000000/recalibrate",
      {
        body: {},
      },
    );
    expect(unknown.status).toBe(404);
    const bad = await h.call("POST", "/api/v1/audiences/nope/recalibrate", { body: {} });
    expectError(bad, 400, "Invalid audience ID format");
  });

  it("checks access before the body", async () => {
    const res = await recalibrate("main", undefined, { as: "admin", raw: "{not json" });
    expect(res.status).toBe(404);
  });

  it("lets a staff admin collaborator make composition amendments only", async () => {
    const admin = h.user("admin");
    if (!admin) throw new Error("admin");
    admin.staff = true;
    const distributions = [{ dimension: "gender", distribution: [{ label: "Women", share: 1 }] }];
    expect((await recalibrate("main", { distributions }, { as: "admin" })).status).toBe(202);
    for (const body of [
      { instruction: "Skew older" },
      { deepen: {} },
      { distributions, sources: ["https://example.org"] },
      {},
    ]) {
      expect((await recalibrate("main", body, { as: "admin" })).status).toBe(404);
    }
    expect((await recalibrate("main", { distributions }, { as: "member" })).status).toBe(404);
  });

  it("answers 413 above 32 MiB", async () => {
    const raw = `{"instruction":"${"a".repeat(33 * 1024 * 1024)}"}`;
    const res = await recalibrate("main", undefined, {
      raw,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(audience("main").calibrationActive).toBe(false);
  });

  it.each<[string, unknown, string]>([
    ["no body", undefined, "Invalid recalibrate payload"],
    ["an array", [], "Invalid recalibrate payload"],
    ["a numeric instruction", { instruction: 5 }, "Invalid recalibrate payload"],
    ["a string for sources", { sources: "https://example.org" }, "Invalid recalibrate payload"],
    ["a non-http link", { sources: { links: ["ftp://example.org"] } }, "Invalid recalibrate payload"],
    ["a file without content", { sources: { files: [{ name: "a.pdf" }] } }, "Invalid recalibrate payload"],
    ["a numeric query", { query: 1 }, "Invalid recalibrate payload"],
    ["deepen as an array", { deepen: [] }, "Invalid recalibrate payload"],
    ["a numeric topic", { deepen: { topics: [1] } }, "Invalid recalibrate payload"],
    [
      "21 topics",
      { deepen: { topics: Array.from({ length: 21 }, (_, i) => `t${i}`) } },
      "Invalid recalibrate payload",
    ],
    ["deepen with distributions", { deepen: {}, distributions: [] }, "Invalid recalibrate payload"],
    ["empty distributions", { distributions: [] }, "Invalid distributions payload"],
    ["distributions as an object", { distributions: {} }, "Invalid distributions payload"],
    [
      "shares not adding up",
      { distributions: [{ dimension: "age", distribution: [{ label: "18-24", share: 0.5 }] }] },
      "Invalid distributions payload",
    ],
    [
      "a duplicate dimension",
      {
        distributions: [
          { dimension: "age", distribution: [{ label: "a", share: 1 }] },
          { dimension: "Age", distribution: [{ label: "a", share: 1 }] },
        ],
      },
      "Invalid distributions payload",
    ],
    [
      "a blank label",
      { distributions: [{ dimension: "age", distribution: [{ label: " ", share: 1 }] }] },
      "Invalid distributions payload",
    ],
  ])("answers 400 for %s and changes nothing", async (_name, body, message) => {
    const state = snapshot();
    const res = await recalibrate("main", body);
    expectError(res, 400, message);
    expect(snapshot() === state).toBe(true);
  });

  it("answers 400 Invalid JSON body for malformed JSON", async () => {
    const res = await recalibrate("main", undefined, {
      raw: "{",
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400, "Invalid JSON body");
  });

  it("answers 403 PlanLimitError for growth beyond the member cap, at the cap, and beyond the Mind quota", async () => {
    const owner = h.user("owner");
    if (!owner) throw new Error("owner");
    const cap = memberCap(owner);
    const quota = mindCap(owner);
    const owned = ownedBy("owner");
    const cases: [string, unknown, Record<string, unknown>][] = [
      [
        "main",
        { instruction: `Add ${cap - 45 + 1} more people` },
        { limitType: "groupMembers", limit: cap, current: 45 },
      ],
      [
        "atCap",
        { instruction: "Add more people from the Nordics" },
        { limitType: "groupMembers", limit: cap, current: cap },
      ],
      ["atCap", { instruction: "add 1" }, { limitType: "groupMembers", limit: cap, current: cap }],
      [
        "main",
        { instruction: `add ${quota - owned + 1}` },
        { limitType: "sparks", limit: quota, current: owned },
      ],
    ];
    expect(quota - owned + 1 + 45).toBeLessThanOrEqual(cap);
    for (const [handle, body, data] of cases) {
      const state = snapshot();
      const res = await recalibrate(handle, body);
      expectError(res, 403, "Individual plan limit reached");
      expect(res.body.data).toEqual({ code: "PLAN_LIMIT", currentPlan: "premium", ...data });
      expect(snapshot() === state).toBe(true);
    }
    // Adjustments are never refused for the cap.
    expect((await recalibrate("atCap", { instruction: "Skew older" })).status).toBe(202);
  });

  it.each<[string, string, unknown, string, string | undefined]>([
    [
      "research mode without saved charts or a query",
      "private",
      { instruction: "Skew older" },
      "Could not find sufficient scientific data to ground this audience. Try a more specific description.",
      undefined,
    ],
    [
      "selection mode without grounding",
      "private",
      { distributions: [{ dimension: "age", distribution: [{ label: "35-44", share: 1 }] }] },
      "This audience has no grounding to recalibrate. Run a research recalibration first.",
      undefined,
    ],
    [
      "a requested distribution no chart can answer",
      "main",
      { requestedDistribution: "[[not-applicable]] shoe size" },
      "The requested distribution cannot be answered by any chart",
      "AUDIENCE_DISTRIBUTION_NOT_APPLICABLE",
    ],
    [
      "a file that cannot be read",
      "main",
      { sources: { files: [{ name: "[[unresolvable]] scan.pdf", url: "https://example.org/scan.pdf" }] } },
      'Could not read the attached file "[[unresolvable]] scan.pdf"',
      undefined,
    ],
  ])("answers 422 for %s and changes nothing", async (_name, handle, body, message, code) => {
    const state = snapshot();
    const res = await recalibrate(handle, body);
    expectError(res, 422, message);
    expect(res.body.data?.code).toBe(code);
    expect(snapshot() === state).toBe(true);
  });

  it.each<[string, string, unknown, number, string, string | undefined]>([
    [
      "research unavailable for an Audience without charts",
      "private",
      { query: "[[research-unavailable]] hospital buyers" },
      502,
      "Research is unavailable",
      undefined,
    ],
    [
      "research unavailable for a full query override",
      "main",
      { query: "[[research-unavailable]] SaaS buyers" },
      502,
      "Research is unavailable",
      undefined,
    ],
    [
      "an unreadable instruction",
      "main",
      { instruction: "[[unreadable]]" },
      503,
      "The instruction could not be read",
      "AUDIENCE_EDIT_UNREAD",
    ],
    [
      "an unreadable instruction with Go deeper",
      "main",
      { instruction: "[[unreadable]]", deepen: {} },
      503,
      "The instruction could not be read",
      "AUDIENCE_EDIT_UNREAD",
    ],
    [
      "Go deeper that cannot be queued",
      "main",
      { deepen: { topics: ["[[unqueueable]] churn"] } },
      503,
      "Go deeper could not be queued",
      undefined,
    ],
    [
      "a run that fails as it starts",
      "main",
      { instruction: "Skew older [[fail-now]]" },
      500,
      "Recalibration failed",
      undefined,
    ],
  ])("answers %s and changes nothing", async (_name, handle, body, status, message, code) => {
    const state = snapshot();
    const res = await recalibrate(handle, body);
    expect(res.status).toBe(status);
    expect(res.body.statusMessage).toBe(message);
    expect(res.body.data?.code).toBe(code);
    expect(snapshot() === state).toBe(true);
    expect((await detail(handle)).calibration.active).toBe(false);
  });

  it("keeps the marker of earlier operations after a run fails as it starts, and a retry is accepted", async () => {
    await recalibrate("main", {});
    expect((await recalibrate("main", { instruction: "[[fail-now]]" })).status).toBe(500);
    expect((await detail("main")).calibration.active).toBe(true);
    h.sim.advance(OPERATION_MS);
    expect((await detail("main")).calibration.active).toBe(false);
    expect((await recalibrate("main", { instruction: "Skew older" })).status).toBe(202);
  });
});
