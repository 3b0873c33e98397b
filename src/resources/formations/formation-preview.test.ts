import { beforeEach, describe, expect, it } from "vitest";
import { expectError, type Harness, harness } from "../../../testing/harness.ts";
import { validate } from "../../contract/validate.ts";
import { BUYING_ROLE_HYPOTHESIS } from "../../scenarios/default.ts";
import { FAIL_MARKER, negotiatePreview } from "./formation-preview.ts";
import { isValidHypothesis } from "./formation-view.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const path = (audience: string): string =>
  `/api/v1/audiences/${h.id("audiences", audience)}/formations/preview`;

interface PreviewOptions {
  as?: string;
  accept?: string | null;
  body?: unknown;
  raw?: string;
}

async function preview(audience: string, o: PreviewOptions = {}) {
  const headers: Record<string, string> = {};
  if (o.accept !== undefined && o.accept !== null) headers.accept = o.accept;
  return h.call("POST", path(audience), {
    as: o.as ?? "owner",
    headers,
    ...(o.body !== undefined ? { body: o.body } : {}),
    ...(o.raw !== undefined ? { raw: o.raw } : {}),
  });
}

/** The stream's lines, each parsed and checked against the contract's PreviewEvent. */
function events(text: string): { type: string; data?: any; error?: string }[] {
  expect(text.endsWith("\n")).toBe(true);
  const lines = text.slice(0, -1).split("\n");
  return lines.map((line) => {
    const event = JSON.parse(line);
    expect(validate("#/components/schemas/PreviewEvent", event), line).toEqual([]);
    return event;
  });
}

const isStream = (r: { headers: Headers }): boolean =>
  r.headers.get("content-type") === "application/x-ndjson; charset=utf-8";

/** A request straight to the simulator, for reading the stream incrementally and for aborting. */
function rawRequest(audience: string, init: { signal?: AbortSignal; body?: unknown } = {}): Request {
  return new Request(`http://sim.test${path(audience)}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.key("owner")}`,
      accept: "application/x-ndjson",
      "content-type": "application/json",
    },
    body: JSON.stringify(init.body ?? {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** Counts reads of Mind records: the proposal reads the roster, the meta and status lines do not. */
function countMindReads(): { count: number } {
  const minds = h.sim.state.minds;
  const probe = { count: 0 };
  const get = minds.get.bind(minds);
  minds.get = (id: string) => {
    probe.count++;
    return get(id);
  };
  return probe;
}

describe("POST .../formations/preview: content negotiation", () => {
  it.each([
    ["no Accept header", null, "ndjson"],
    ["an empty Accept header", "", "ndjson"],
    ["*/*", "*/*", "ndjson"],
    ["application/*", "application/*", "ndjson"],
    ["application/x-ndjson", "application/x-ndjson", "ndjson"],
    ["application/json", "application/json", "json"],
    ["application/json with a charset", "application/json; charset=UTF-8", "json"],
    ["quality weights", "application/json;q=0.5, application/x-ndjson;q=0.9", "ndjson"],
    ["quality weights, reversed", "application/json;q=0.9, application/x-ndjson;q=0.5", "json"],
    ["ndjson refused with q=0", "application/x-ndjson;q=0, application/json", "json"],
    ["a wildcard with a more specific weight", "*/*, application/x-ndjson;q=0.1", "json"],
    ["text/html with a low-weight wildcard", "text/html, */*;q=0.1", "ndjson"],
    ["a browser's Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "ndjson"],
  ])("with %s answers %s", async (_name, accept, mode) => {
    const r = await preview("main", { accept });
    expect(r.status).toBe(200);
    if (mode === "ndjson") {
      expect(isStream(r)).toBe(true);
      expect(events(r.text).map((e) => e.type)).toEqual(["meta", "status", "subgroups", "done"]);
    } else {
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(r.body.success).toBe(true);
    }
    expect(r.headers.get("vary")).toBe("Accept");
    expect(r.headers.get("cache-control")).toContain("no-store");
    expect(r.headers.get("ratelimit-limit")).not.toBeNull();
  });

  it.each([
    "text/html",
    "application/xml",
    "application/x-ndjson;q=0, application/json;q=0",
    "*/*;q=0",
    "application/json;version=2",
    "text/*",
  ])("answers 406 for %s", async (accept) => {
    const r = await preview("main", { accept });
    expectError(r, 406, "Not Acceptable: use application/json or application/x-ndjson");
    expect(r.body.error).toBe(true);
  });

  it("answers 406 before the body is read or any generation, and 404 before 406", async () => {
    const probe = countMindReads();
    const notJson = await preview("main", { accept: "text/html", raw: "{broken" });
    expect(notJson.status).toBe(406);
    const invalid = await preview("main", { accept: "text/html", body: { userInput: 42 } });
    expect(invalid.status).toBe(406);
    expect(probe.count).toBe(0);
    const hidden = await preview("main", { as: "outsider", accept: "text/html" });
    expectError(hidden, 404, "Audience not found");
  });

  it("negotiates with the negotiator's rules", () => {
    expect(negotiatePreview(null)).toBe("ndjson");
    expect(negotiatePreview("application/json;q=1, application/x-ndjson;q=1")).toBe("json");
    expect(negotiatePreview("application/x-ndjson;charset=utf-8")).toBe("ndjson");
    expect(negotiatePreview("application/x-ndjson;charset=latin1")).toBeNull();
    expect(negotiatePreview("garbage")).toBeNull();
  });
});

describe("POST .../formations/preview: the proposal", () => {
  it("answers JSON mode with the document the contract describes", async () => {
    const r = await preview("main", { accept: "application/json" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        memberCount: 45,
        softWarn: false,
        hardCapExceeded: false,
        phase: "hypothesizing",
        hypothesis: expect.any(Object),
      },
    });
    expect(isValidHypothesis(r.body.data.hypothesis)).toBe(true);
  });

  it("streams meta, status, subgroups and done, in that order, each line valid", async () => {
    const r = await preview("main");
    expect(r.status).toBe(200);
    const lines = events(r.text);
    expect(lines.map((e) => e.type)).toEqual(["meta", "status", "subgroups", "done"]);
    expect(lines[0]?.data).toEqual({ memberCount: 45, softWarn: false, hardCapExceeded: false });
    expect(lines[1]?.data).toEqual({ phase: "hypothesizing" });
    expect(isValidHypothesis(lines[2]?.data)).toBe(true);
    expect(lines[3]).toEqual({ type: "done" });
  });

  it("proposes the same hypothesis in both modes, and again for the same request", async () => {
    const body = { userInput: "Split them by industry" };
    const json = await preview("main", { accept: "application/json", body });
    const again = await preview("main", { accept: "application/json", body });
    const stream = events((await preview("main", { body })).text);
    expect(again.body).toEqual(json.body);
    expect(stream[2]?.data).toEqual(json.body.data.hypothesis);
  });

  it("splits by the attribute the request names, and by the most varied one otherwise", async () => {
    const main = h.audience("main");
    if (!main) throw new Error("no main");
    const industries = new Set(main.memberIds.map((id) => h.sim.state.minds.get(id)?.attributes.industry));
    const byIndustry = await preview("main", {
      accept: "application/json",
      body: { userInput: " by industry " },
    });
    const hyp = byIndustry.body.data.hypothesis;
    expect(hyp.intent).toBe("by industry");
    for (const s of hyp.subgroups) {
      if (s.id === "not-stated" || s.id === "any-other-industry") continue;
      expect(industries.has(s.label)).toBe(true);
      expect(s.definition).toContain("industry");
    }
    const plain = await preview("main", { accept: "application/json" });
    expect(plain.body.data.hypothesis.intent).toMatch(/^Split the audience into meaningful subgroups by /);
  });

  it("proposals satisfy the creation rules and can be created", async () => {
    for (const audience of ["main", "private", "public", "atCap", "empty", "large"]) {
      for (const userInput of [undefined, "by country", "by company size", "by technology", "by role"]) {
        const r = await preview(audience, {
          accept: "application/json",
          body: userInput === undefined ? {} : { userInput },
        });
        expect(r.status, `${audience} ${userInput}`).toBe(200);
        const hyp = r.body.data.hypothesis;
        expect(isValidHypothesis(hyp)).toBe(true);
        expect(hyp.subgroups.length).toBeGreaterThanOrEqual(2);
        expect(hyp.subgroups.length).toBeLessThanOrEqual(15);
      }
    }
    const hyp = (await preview("main", { accept: "application/json" })).body.data.hypothesis;
    const created = await h.call("POST", `/api/v1/audiences/${h.id("audiences", "main")}/formations`, {
      body: { hypothesis: hyp },
    });
    expect(created.status).toBe(200);
  });

  it("refines a prior hypothesis: same buckets, definitions adjusted, still valid", async () => {
    const r = await preview("main", {
      accept: "application/json",
      body: { userInput: "Make them sharper", priorHypothesis: BUYING_ROLE_HYPOTHESIS },
    });
    expect(r.status).toBe(200);
    const hyp = r.body.data.hypothesis;
    expect(isValidHypothesis(hyp)).toBe(true);
    expect(hyp.intent).toBe(BUYING_ROLE_HYPOTHESIS.intent);
    expect(hyp.subgroups.map((s: { id: string; label: string }) => [s.id, s.label])).toEqual(
      BUYING_ROLE_HYPOTHESIS.subgroups.map((s) => [s.id, s.label]),
    );
    hyp.subgroups.forEach((s: { definition: string }, i: number) => {
      expect(s.definition.startsWith(BUYING_ROLE_HYPOTHESIS.subgroups[i]?.definition ?? "?")).toBe(true);
      expect(s.definition).toMatch(/\(about \d+ of 45 members fit today\)$/);
    });
    // Refining the refinement does not pile up notes.
    const twice = await preview("main", { accept: "application/json", body: { priorHypothesis: hyp } });
    expect(twice.body.data.hypothesis.subgroups).toEqual(hyp.subgroups);
  });

  it("accepts a null priorHypothesis, an empty object body and no body", async () => {
    for (const o of [{ body: { priorHypothesis: null } }, { body: {} }, {}]) {
      const r = await preview("main", { accept: "application/json", ...o });
      expect(r.status).toBe(200);
    }
  });

  it("persists nothing", async () => {
    const before = JSON.stringify([...h.sim.state.formations.values()]);
    await preview("main");
    await preview("main", { accept: "application/json", body: { priorHypothesis: BUYING_ROLE_HYPOTHESIS } });
    await preview("main", { body: { userInput: FAIL_MARKER } });
    expect(JSON.stringify([...h.sim.state.formations.values()])).toBe(before);
  });
});

describe("POST .../formations/preview: failures", () => {
  it("answers 500 Failed to propose subgroups in JSON mode", async () => {
    const r = await preview("main", {
      accept: "application/json",
      body: { userInput: `please ${FAIL_MARKER}` },
    });
    expectError(r, 500, "Failed to propose subgroups");
  });

  it("reports a failed proposal in band once the stream has started", async () => {
    const r = await preview("main", { body: { userInput: FAIL_MARKER } });
    expect(r.status).toBe(200);
    expect(isStream(r)).toBe(true);
    const lines = events(r.text);
    expect(lines).toEqual([
      { type: "meta", data: { memberCount: 45, softWarn: false, hardCapExceeded: false } },
      { type: "status", data: { phase: "hypothesizing" } },
      { type: "error", error: "Failed to propose subgroups" },
      { type: "done" },
    ]);
  });

  it.each([
    ["userInput not a string", { userInput: 42 }],
    ["userInput of 2001 characters after trimming", { userInput: ` ${"a".repeat(2001)} ` }],
    ["a body that is not an object", ["userInput"]],
    ["a null body", null],
    [
      "a priorHypothesis with one subgroup",
      { priorHypothesis: { intent: "x", subgroups: [{ id: "a", label: "A", definition: "a" }] } },
    ],
    [
      "a priorHypothesis without intent",
      { priorHypothesis: { subgroups: BUYING_ROLE_HYPOTHESIS.subgroups } },
    ],
    ["a priorHypothesis that is a string", { priorHypothesis: "split by role" }],
    [
      "a priorHypothesis with a reserved id after trimming",
      {
        priorHypothesis: {
          ...BUYING_ROLE_HYPOTHESIS,
          subgroups: [
            ...BUYING_ROLE_HYPOTHESIS.subgroups,
            { id: " __other ", label: "Rest", definition: "rest" },
          ],
        },
      },
    ],
    [
      "a priorHypothesis with labels duplicate after trimming",
      {
        priorHypothesis: {
          intent: "x",
          subgroups: [
            { id: "a", label: "Same", definition: "a" },
            { id: "b", label: " Same ", definition: "b" },
          ],
        },
      },
    ],
  ])("answers 400 Invalid preview input for %s", async (_name, body) => {
    for (const accept of ["application/json", "application/x-ndjson"]) {
      const r = await preview("main", { accept, raw: JSON.stringify(body) });
      expectError(r, 400, "Invalid preview input");
    }
  });

  it("accepts userInput of 2000 characters after trimming", async () => {
    const r = await preview("main", {
      accept: "application/json",
      body: { userInput: `  ${"a".repeat(2000)}\n` },
    });
    expect(r.status).toBe(200);
  });

  it("answers Invalid JSON body and 413 over 64 KiB", async () => {
    const bad = await preview("main", { raw: '{"userInput": ' });
    expectError(bad, 400, "Invalid JSON body");
    const big = await preview("main", { body: { userInput: "a", padding: "x".repeat(64 * 1024) } });
    expect(big.status).toBe(413);
  });

  it("answers 404 Audience not found to callers who cannot view the Audience", async () => {
    const r = await preview("main", { as: "outsider" });
    expectError(r, 404, "Audience not found");
    expect((await preview("public", { as: "outsider", accept: "application/json" })).status).toBe(200);
    expect((await preview("main", { as: "studyViewer", accept: "application/json" })).status).toBe(200);
  });
});

describe("POST .../formations/preview: member counts", () => {
  /** The preview of `handle` states `meta` in JSON and as the stream's first event; answers the JSON. */
  async function expectMeta(
    handle: string,
    meta: { memberCount: number; softWarn: boolean; hardCapExceeded: boolean },
  ) {
    const json = await preview(handle, { accept: "application/json" });
    expect(json.body.data).toMatchObject(meta);
    expect(events((await preview(handle)).text)[0]?.data).toEqual(meta);
    return json.body.data;
  }

  it("warns softly from 50 members", async () => {
    const main = h.audience("main");
    const extra = h.audience("large").memberIds.slice(0, 5);
    main.memberIds.push(...extra.slice(0, 4));
    await expectMeta("main", { memberCount: 49, softWarn: false, hardCapExceeded: false });
    main.memberIds.push(extra[4] as string);
    await expectMeta("main", { memberCount: 50, softWarn: true, hardCapExceeded: false });
  });

  it("flags more than 1000 members and still proposes", async () => {
    const data = await expectMeta("large", { memberCount: 5200, softWarn: true, hardCapExceeded: true });
    expect(isValidHypothesis(data.hypothesis)).toBe(true);
  });

  it("proposes for an Audience without members", async () => {
    const data = await expectMeta("empty", { memberCount: 0, softWarn: false, hardCapExceeded: false });
    expect(isValidHypothesis(data.hypothesis)).toBe(true);
  });
});

describe("POST .../formations/preview: the stream as a client reads it", () => {
  it("delivers complete lines one chunk at a time, generating only when the proposal is read", async () => {
    const probe = countMindReads();
    const res = await h.sim.fetch(rawRequest("main"));
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    const seen: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value);
      expect(chunk.endsWith("\n")).toBe(true);
      expect(chunk.slice(0, -1)).not.toContain("\n");
      const event = JSON.parse(chunk);
      expect(validate("#/components/schemas/PreviewEvent", event)).toEqual([]);
      seen.push(event.type);
      if (event.type === "status") expect(probe.count).toBe(0);
    }
    expect(seen).toEqual(["meta", "status", "subgroups", "done"]);
    expect(probe.count).toBeGreaterThan(0);
  });

  it("stops without an error, and without generating, when the client disconnects", async () => {
    const probe = countMindReads();
    const controller = new AbortController();
    const res = await h.sim.fetch(rawRequest("main", { signal: controller.signal }));
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    const first = await reader.read();
    expect(JSON.parse(new TextDecoder().decode(first.value)).type).toBe("meta");
    controller.abort();
    const next = await reader.read();
    expect(next.done).toBe(true);
    expect(probe.count).toBe(0);
    // The simulator keeps serving.
    expect((await preview("main", { accept: "application/json" })).status).toBe(200);
  });

  it("closes at once when the request was aborted before reading", async () => {
    const controller = new AbortController();
    const res = await h.sim.fetch(rawRequest("main", { signal: controller.signal }));
    controller.abort();
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    expect((await reader.read()).done).toBe(true);
  });
});
