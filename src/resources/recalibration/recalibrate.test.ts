import { describe, expect, it } from "vitest";
import { expectError } from "../../../testing/harness.ts";
import {
  acceptedOperation,
  audience,
  detail,
  h,
  progress,
  recalibrate,
  replay,
  snapshot,
  UUID,
  withSimulator,
} from "../../../testing/recalibration.ts";
import {
  DEFAULT_GROWTH,
  MAX_PENDING,
  OPERATION_MS,
  OPERATION_START_MS,
  OPERATION_STEP_MS,
  RESEARCH_MS,
  RUNS_POLL_MS,
} from "./records.ts";
import { classifyInstruction } from "./request.ts";

describe("classifyInstruction", () => {
  it.each([
    ["Add more respondents from the Nordics", "additive", null],
    ["add 20 people in retail", "additive", 20],
    ["Include 15 procurement leads", "additive", 15],
    ["We need 30 more CFOs", "additive", 30],
    ["grow by 12", "additive", 12],
    ["Expand the panel to cover Spain", "additive", null],
    ["Focus on buyers at mid-sized firms", "adjustment", null],
    ["Make it 60% women", "adjustment", null],
    ["Moreover, skew younger", "adjustment", null],
  ])("%s → %s (%s)", (text, kind, count) => {
    expect(classifyInstruction(text)).toEqual({ kind, count });
  });
});

describe("POST /audiences/{id}/recalibrate: operations", () => {
  withSimulator();
  it("accepts an adjustment with a queued receipt that runs on the clock and completes", async () => {
    const op = await acceptedOperation("main");
    expect(op).toMatchObject({ status: "queued", progress: 0, result: null, error: null });
    expect(op.id).toMatch(/^op_/);
    expect(op.requestKey).toMatch(/^rk_/);
    expect(op.statusUrl).toBe(
      `/api/v1/audiences/${h.id("audiences", "main")}/recalibrate/operations/${op.id}`,
    );
    expect((await detail("main")).calibration.active).toBe(true);

    h.sim.advance(OPERATION_START_MS);
    const running = await replay("main", op.requestKey);
    expect(running.status).toBe(202);
    expect(running.body.data.operation).toMatchObject({ id: op.id, status: "running", progress: 10 });
    expect((await detail("main")).calibration.active).toBe(true);

    h.sim.advance(OPERATION_STEP_MS);
    expect((await replay("main", op.requestKey)).body.data.operation.progress).toBe(30);

    h.sim.advance(OPERATION_MS - OPERATION_START_MS - OPERATION_STEP_MS);
    const done = await replay("main", op.requestKey);
    expect(done.status).toBe(200);
    expect(done.body.data.operation).toMatchObject({
      id: op.id,
      requestKey: op.requestKey,
      status: "completed",
      progress: 100,
      error: null,
      result: {
        mode: "research",
        classification: "adjustment",
        membersRecalibrated: 45,
        membersAdded: 0,
        membersRebuilt: 5,
        requestedTopics: [],
      },
    });
    const after = await detail("main");
    expect(after.calibration.active).toBe(false);
    expect(after.sources.adjustments).toContain("Focus on buyers at mid-sized firms");
    // Rebuilt members retrain: the progress endpoint shows them training.
    expect((await progress("main")).readiness.training).toBe(5);
  });

  it("serves the /v1 prefix in statusUrl", async () => {
    const res = await h.call("POST", `/v1/audiences/${h.id("audiences", "main")}/recalibrate`, { body: {} });
    expect(res.status).toBe(202);
    expect(res.body.data.operation.statusUrl).toMatch(/^\/v1\/audiences\//);
  });

  it("replays a key: 202 with the same receipt while pending, 200 once terminal, and no work repeated", async () => {
    const body = { instruction: "Skew towards finance roles" };
    const first = await replay("main", "edit-1", body);
    expect(first.status).toBe(202);
    expect(first.body.data.operation.requestKey).toBe("edit-1");
    const again = await replay("main", "edit-1", body);
    expect(again.status).toBe(202);
    expect(again.body.data.operation).toEqual(first.body.data.operation);

    h.sim.advance(OPERATION_MS);
    const terminal = await replay("main", "edit-1", body);
    expect(terminal.status).toBe(200);
    expect(terminal.body.data.operation).toMatchObject({
      id: first.body.data.operation.id,
      status: "completed",
    });
    const state = snapshot();
    const replayed = await replay("main", "edit-1", body);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(terminal.body);
    expect(snapshot() === state).toBe(true);
    expect(audience("main").sources.adjustments.filter((a) => a === body.instruction)).toHaveLength(1);
  });

  it("scopes keys per Audience and ignores blank or over-long keys", async () => {
    const a = await replay("main", "shared-key");
    const b = await replay("atCap", "shared-key");
    expect(b.status).toBe(202);
    expect(b.body.data.operation.id).not.toBe(a.body.data.operation.id);
    for (const key of ["   ", "k".repeat(129)]) {
      const res = await replay("private", key, { query: "Hospital procurement leads in Germany" });
      expect(res.status).toBe(202);
      expect(res.body.data.operation.requestKey).toMatch(/^rk_/);
    }
    const longest = await replay("main", "k".repeat(128));
    expect(longest.body.data.operation.requestKey).toBe("k".repeat(128));
  });

  it("runs pending operations one at a time, in order", async () => {
    const first = (await recalibrate("main", {})).body.data.operation;
    const second = (await recalibrate("main", { instruction: "Skew older" })).body.data.operation;
    h.sim.advance(OPERATION_MS);
    expect((await replay("main", first.requestKey)).body.data.operation.status).toBe("completed");
    expect((await replay("main", second.requestKey)).body.data.operation.status).toBe("queued");
    expect((await detail("main")).calibration.active).toBe(true);
    h.sim.advance(OPERATION_START_MS);
    expect((await replay("main", second.requestKey)).body.data.operation.status).toBe("running");
    h.sim.advance(OPERATION_MS - OPERATION_START_MS);
    expect((await replay("main", second.requestKey)).status).toBe(200);
    expect((await detail("main")).calibration.active).toBe(false);
  });

  it("refuses the 11th pending edit with 409 RECALIBRATION_IN_PROGRESS, and accepts again once one ends", async () => {
    for (let i = 0; i < MAX_PENDING; i++) expect((await recalibrate("main", {})).status).toBe(202);
    const state = snapshot();
    const refused = await recalibrate("main", {});
    expect(refused.status).toBe(409);
    expect(refused.body.data.code).toBe("RECALIBRATION_IN_PROGRESS");
    expect((await recalibrate("main", { deepen: {} })).status).toBe(409);
    expect(snapshot() === state).toBe(true);
    h.sim.advance(OPERATION_MS);
    expect((await recalibrate("main", {})).status).toBe(202);
  });

  it("grows the Audience for an additive instruction; new members train", async () => {
    const res = await recalibrate("main", { instruction: "Add more respondents from the Nordics" });
    expect(res.status).toBe(202);
    h.sim.advance(OPERATION_MS);
    const op = (await replay("main", res.body.data.operation.requestKey)).body.data.operation;
    expect(op.result).toMatchObject({
      classification: "additive",
      membersAdded: DEFAULT_GROWTH,
      membersRebuilt: 0,
    });
    const p = await progress("main");
    expect(p.members).toHaveLength(45 + DEFAULT_GROWTH);
    expect(p.readiness.training).toBe(DEFAULT_GROWTH);
    expect(p.members.at(-1).update).toMatchObject({ readyToChat: false, trainingStatus: "queued" });
  });

  it("answers 200 only for terminal operations: a failed run keeps its error", async () => {
    const res = await recalibrate("main", { instruction: "Skew younger [[fail]]" });
    expect(res.status).toBe(202);
    const before = structuredClone(audience("main").sources);
    h.sim.advance(OPERATION_START_MS + 2 * OPERATION_STEP_MS);
    const failed = await replay("main", res.body.data.operation.requestKey);
    expect(failed.status).toBe(200);
    expect(failed.body.data.operation).toMatchObject({
      status: "failed",
      progress: 50,
      result: null,
      error: { code: "RECALIBRATION_FAILED" },
    });
    expect((await detail("main")).calibration.active).toBe(false);
    expect(audience("main").sources).toEqual(before);
  });
});

describe("POST /audiences/{id}/recalibrate: requested topics and selection mode", () => {
  withSimulator();
  it.each([
    ["a chart already present", (dim: string) => dim, "already_covered"],
    ["a new chart", () => "pricing sensitivity", "added"],
    ["a chart that cannot be made", () => "[[not-found]] left-handedness", "not_found"],
  ])("reports %s", async (_name, topic, status) => {
    const existing = audience("main").grounding?.charts[0]?.dimension ?? "";
    const chartsBefore = audience("main").grounding?.charts.map((c) => c.id) ?? [];
    const res = await recalibrate("main", { requestedDistribution: topic(existing) });
    h.sim.advance(OPERATION_MS);
    const op = (await replay("main", res.body.data.operation.requestKey)).body.data.operation;
    expect(op.status).toBe("completed");
    expect(op.result.requestedTopics).toEqual([expect.objectContaining({ topic: topic(existing), status })]);
    const chartsAfter = audience("main").grounding?.charts.map((c) => c.id) ?? [];
    expect(chartsAfter.slice(0, chartsBefore.length)).toEqual(chartsBefore);
    expect(chartsAfter.length - chartsBefore.length).toBe(status === "added" ? 1 : 0);
  });

  it("replaces the named distributions in selection mode", async () => {
    const distribution = [
      { label: "DE", share: 0.6 },
      { label: "FR", share: 0.4 },
    ];
    const res = await recalibrate("main", { distributions: [{ dimension: "country", distribution }] });
    expect(res.status).toBe(202);
    h.sim.advance(OPERATION_MS);
    const op = (await replay("main", res.body.data.operation.requestKey)).body.data.operation;
    expect(op.result).toMatchObject({ mode: "selection", membersRecalibrated: 45 });
    const country = (await progress("main")).coverage.dimensions.find(
      (d: { dimension: string }) => d.dimension === "country",
    );
    expect(country).toEqual({ dimension: "country", status: "sourced", distribution });
  });

  it("grounds an Audience without charts from a full query override", async () => {
    const res = await recalibrate("private", { query: "Hospital procurement leads in Germany" });
    expect(res.status).toBe(202);
    h.sim.advance(OPERATION_MS);
    const op = (await replay("private", res.body.data.operation.requestKey)).body.data.operation;
    expect(op.result.chartsAdded).toBeGreaterThan(0);
    expect((await progress("private")).coverage.counts.sourced).toBe(op.result.chartsAdded);
    const selection = await recalibrate("private", {
      distributions: [{ dimension: "gender", distribution: [{ label: "Women", share: 1 }] }],
    });
    expect(selection.status).toBe(202);
  });
});

describe("POST /audiences/{id}/recalibrate: Go deeper", () => {
  withSimulator();
  it("queues research, queues a second one behind it, and applies both in turn", async () => {
    const id = h.id("audiences", "main");
    const coverageBefore = structuredClone(audience("main").coverage ?? []);
    const chartsBefore = audience("main").grounding?.charts.map((c) => c.id) ?? [];
    const existing = audience("main").grounding?.charts[0]?.dimension ?? "";
    const first = await recalibrate("main", {
      deepen: { topics: ["pricing sensitivity", existing, "[[not-found]] left-handedness"] },
    });
    expect(first.status).toBe(202);
    expect(first.body.data.research).toEqual({
      jobId: expect.stringMatching(UUID),
      phase: "researching",
      status: "queued",
      stage: "researching",
      progress: 0,
    });
    expect(first.body.data.progressUrl).toBe(`/api/v1/audiences/${id}/progress`);

    const second = await recalibrate("main", { deepen: { topics: ["switching costs"] } });
    expect(second.status).toBe(202);
    expect(second.body.data.research.queuedBehindRunningResearch).toBe(true);
    expect(second.body.data.research.jobId).not.toBe(first.body.data.research.jobId);

    h.sim.advance(RESEARCH_MS);
    const mid = (await progress("main")).research;
    expect(mid).toMatchObject({ phase: "researching", status: "queued", stage: "researching", progress: 0 });

    h.sim.advance(RESEARCH_MS);
    const after = await progress("main");
    expect(after.research).toMatchObject({
      phase: "researched",
      status: "completed",
      stage: "done",
      progress: 100,
    });
    expect(after.research.outcome.topics).toEqual([
      expect.objectContaining({ topic: "switching costs", status: "added" }),
    ]);
    const charts = audience("main").grounding?.charts ?? [];
    expect(charts.map((c) => c.id).slice(0, chartsBefore.length)).toEqual(chartsBefore);
    expect(charts.some((c) => c.dimension === "pricing sensitivity")).toBe(true);
    // Every dimension that was missing or assumed is sourced now; the others are unchanged.
    for (const row of coverageBefore) {
      const now = after.coverage.dimensions.find((d: { dimension: string }) => d.dimension === row.dimension);
      if (row.status === "missing" || row.status === "assumed") expect(now.status).toBe("sourced");
      else expect(now.status).toBe(row.status);
    }
  });

  it("reports added, already_covered and not_found topics in the outcome", async () => {
    const existing = audience("main").grounding?.charts[0]?.dimension ?? "";
    const weak = (audience("main").coverage ?? []).filter(
      (r) => r.status === "missing" || r.status === "assumed",
    );
    await recalibrate("main", { deepen: { topics: ["pricing sensitivity", existing, "[[not-found]] x"] } });
    h.sim.advance(RESEARCH_MS);
    const outcome = (await progress("main")).research.outcome;
    expect(outcome.topics.map((t: { status: string }) => t.status)).toEqual([
      "added",
      "already_covered",
      "not_found",
    ]);
    expect(outcome.topics[1].chart.dimension).toBe(existing);
    expect(outcome.chartsAdded).toBe(1 + weak.length);
    expect(outcome.dimensionsImproved).toEqual(
      weak.map((r) => ({ dimension: r.dimension, from: r.status, to: "sourced" })),
    );
    expect(outcome).toMatchObject({ applied: true, membersRecalibrated: 45, sourcesAdded: 1 });
  });

  it("joins sources and instruction to the source bundle at once", async () => {
    const res = await recalibrate("main", {
      instruction: "Look closer at procurement",
      sources: { links: ["https://example.org/report"], files: [{ name: "notes.txt", content: "hello" }] },
      deepen: {},
    });
    expect(res.status).toBe(202);
    const sources = (await detail("main")).sources;
    expect(sources.adjustments).toContain("Look closer at procurement");
    expect(sources.links.map((l: { url: string }) => l.url)).toContain("https://example.org/report");
    expect(sources.files.map((f: { name: string }) => f.name)).toContain("notes.txt");
  });

  it("waits for a running validation before recalibrating members", async () => {
    const validation = audience("main").validations[0];
    if (!validation) throw new Error("main has a validation");
    validation.status = "running";
    await recalibrate("main", { deepen: {} });
    h.sim.advance(RESEARCH_MS);
    expect((await progress("main")).research).toMatchObject({ stage: "waiting_for_runs", status: "running" });
    h.sim.advance(RUNS_POLL_MS * 3);
    expect((await progress("main")).research.stage).toBe("waiting_for_runs");
    validation.status = "scored";
    h.sim.advance(RUNS_POLL_MS + RESEARCH_MS);
    expect((await progress("main")).research.stage).toBe("done");
  });
});

describe("GET /audiences/{id}/recalibrate/operations/{operationId}", () => {
  withSimulator();

  it("answers the receipt at its statusUrl, on both prefixes, as the clock moves it to completed", async () => {
    const op = await acceptedOperation("main");
    expect(op.statusUrl).toBe(
      `/api/v1/audiences/${h.id("audiences", "main")}/recalibrate/operations/${op.id}`,
    );
    const read = async (prefix: "/api/v1" | "/v1") => {
      const res = await h.call("GET", op.statusUrl.replace("/api/v1", prefix));
      expect(res.status).toBe(200);
      return res.body.data.operation;
    };
    expect(await read("/api/v1")).toEqual(op);
    expect((await read("/v1")).status).toBe("queued");
    h.sim.advance(OPERATION_START_MS);
    expect(await read("/v1")).toMatchObject({ status: "running", progress: 10 });
    h.sim.advance(OPERATION_MS);
    const done = await read("/api/v1");
    expect(done).toMatchObject({ id: op.id, requestKey: op.requestKey, status: "completed", progress: 100 });
    expect(done.result).not.toBeNull();
    // The same receipt a replay of the request key answers.
    expect((await replay("main", op.requestKey)).body.data.operation).toEqual(done);
  });

  it("reports a failed operation as failed", async () => {
    const accepted = await recalibrate("main", { instruction: "Focus on buyers [[fail]]" });
    const url = accepted.body.data.operation.statusUrl;
    h.sim.advance(OPERATION_MS);
    const op = (await h.call("GET", url)).body.data.operation;
    expect(op.status).toBe("failed");
    expect(op.error).not.toBeNull();
  });

  it("is readable by whoever may read the Audience, and 404 for anyone else or any other operation", async () => {
    const { id, statusUrl } = await acceptedOperation("main");
    expect((await h.call("GET", statusUrl, { as: "member" })).status).toBe(200);
    expect((await h.call("GET", statusUrl, { as: "teammate" })).status).toBe(200);
    const outsider = await h.call("GET", statusUrl, { as: "outsider" });
    expectError(outsider, 404, "Audience not found");
    const unknown = await h.call("GET", statusUrl.replace(id, "op_doesnotexist"));
    expectError(unknown, 404, "Operation not found");
    // Any string is an operation ID to the contract: a blank one names nothing (404), it is not malformed.
    expectError(await h.call("GET", statusUrl.replace(id, "%20")), 404, "Operation not found");
    expectError(await h.call("GET", statusUrl.replace(id, "%09%20")), 404, "Operation not found");
    // An operation of one Audience is not found under another.
    const other = await h.call(
      "GET",
      statusUrl.replace(h.id("audiences", "main"), h.id("audiences", "private")),
    );
    expect(other.status).toBe(404);
    const malformed = await h.call("GET", `/api/v1/audiences/nope/recalibrate/operations/${id}`);
    expect(malformed.status).toBe(400);
    expect((await h.call("GET", statusUrl, { as: null })).status).toBe(401);
  });
});
