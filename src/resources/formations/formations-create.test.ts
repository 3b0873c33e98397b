import { describe, expect, it } from "vitest";
import { base, create, freshWorldEachTest, h, hypothesis, one, record } from "../../../testing/formations.ts";
import { expectError } from "../../../testing/harness.ts";
import { BUYING_ROLE_HYPOTHESIS } from "../../scenarios/default.ts";
import { BUILD_TOTAL_MS } from "./formation-builds.ts";
import { compactName, NAME_MAX } from "./formations.ts";

freshWorldEachTest();

describe("POST /audiences/{id}/formations", () => {
  it("creates a shared Formation that builds on the clock", async () => {
    const r = await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS, name: "  Roles  " });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: expect.any(String), name: "Roles", status: "building" });
    expect(r.headers.get("cache-control")).toContain("no-store");
    const id = r.body.data.id as string;
    const building = (await h.call("GET", one("main", id))).body.data;
    expect(building.status).toBe("building");
    expect(building.visibility).toBe("shared");
    expect(building.subgroups).toEqual([]);
    expect(building.hypothesis).toEqual(BUYING_ROLE_HYPOTHESIS);
    expect(building.progress).toEqual({ phase: expect.any(String), done: 0, total: 45, percent: 0 });
    expect(building).not.toHaveProperty("failureReason");
    h.sim.advance(1500);
    const mid = (await h.call("GET", one("main", id))).body.data;
    expect(mid.progress.done).toBeGreaterThan(0);
    expect(mid.progress.percent).toBe(Math.floor((mid.progress.done * 100) / mid.progress.total));
    h.sim.advance(BUILD_TOTAL_MS);
    const done = (await h.call("GET", one("main", id))).body.data;
    expect(done.status).toBe("ready");
    expect(done.progress).toBeNull();
    const assigned = done.subgroups.flatMap((g: { members: { mindId: string }[] }) => g.members);
    expect(assigned).toHaveLength(45);
    for (const g of done.subgroups) {
      expect(g.memberCount).toBe(g.members.length);
      for (const m of g.members) expect(m.confidence).toBeGreaterThan(0);
    }
  });

  it("stores trimmed values and names the Formation after its intent by default", async () => {
    const padded = {
      intent: "   Split   by\n  season   ",
      subgroups: [
        { id: "  summer ", label: " Summer people ", definition: "  Love the heat " },
        { id: "winter", label: "Winter people", definition: "Love the cold" },
      ],
    };
    const r = await create("main", { hypothesis: padded });
    expect(r.body.data.name).toBe("Split by season");
    const got = (await h.call("GET", one("main", r.body.data.id))).body.data;
    expect(got.hypothesis).toEqual({
      intent: "Split   by\n  season",
      subgroups: [
        { id: "summer", label: "Summer people", definition: "Love the heat" },
        { id: "winter", label: "Winter people", definition: "Love the cold" },
      ],
    });
    const blankName = await create("main", { hypothesis: hypothesis(2), name: "   " });
    expect(blankName.body.data.name).toBe("Split by favourite season");
  });

  it("compacts a long intent at a word boundary with an ellipsis", async () => {
    const intent =
      "Separate the buyers who champion new collaboration software from those who resist any change at all";
    const r = await create("main", { hypothesis: hypothesis(2, intent) });
    const name = r.body.data.name as string;
    expect(name.length).toBeLessThanOrEqual(NAME_MAX);
    expect(name.endsWith("…")).toBe(true);
    expect(intent.startsWith(name.slice(0, -1))).toBe(true);
    expect(intent[name.length - 1]).toBe(" ");
    expect(compactName("x".repeat(80))).toBe(`${"x".repeat(NAME_MAX - 1)}…`);
    expect(compactName(`${"a".repeat(NAME_MAX - 1)} tail`)).toBe(`${"a".repeat(NAME_MAX - 1)}…`);
    expect(compactName("a".repeat(NAME_MAX))).toBe("a".repeat(NAME_MAX));
  });

  it("creates private Formations for viewers who are not collaborators", async () => {
    const viewer = await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS }, "studyViewer");
    expect(viewer.status).toBe(200);
    expect(record(viewer.body.data.id).visibility).toBe("private");
    const outsider = await create("public", { hypothesis: hypothesis(2) }, "outsider");
    expect(outsider.status).toBe(200);
    expect(record(outsider.body.data.id).visibility).toBe("private");
    const publisher = await create("public", { hypothesis: hypothesis(2) }, "publisher");
    expect(record(publisher.body.data.id).visibility).toBe("shared");
  });

  it("answers 404 Audience not found to callers who cannot view it, before looking at the body", async () => {
    for (const body of [{ hypothesis: hypothesis(2) }, { hypothesis: hypothesis(1) }]) {
      const r = await create("main", body, "outsider");
      expectError(r, 404, "Audience not found");
    }
    const bad = await h.call("POST", base("main"), { as: "outsider", raw: "{not json" });
    expect(bad.status).toBe(404);
  });

  describe("400 Invalid Formation input", () => {
    const cases: [string, unknown][] = [
      ["no body", undefined],
      ["a body that is not an object", ["hypothesis"]],
      ["no hypothesis", { name: "x" }],
      ["a hypothesis that is not an object", { hypothesis: "split" }],
      ["no intent", { hypothesis: { subgroups: hypothesis(2).subgroups } }],
      ["a blank intent", { hypothesis: { ...hypothesis(2), intent: " \t\n " } }],
      ["an empty intent", { hypothesis: { ...hypothesis(2), intent: "" } }],
      ["one subgroup", { hypothesis: hypothesis(1) }],
      ["no subgroups", { hypothesis: hypothesis(0) }],
      ["16 subgroups", { hypothesis: hypothesis(16) }],
      ["subgroups not an array", { hypothesis: { intent: "x", subgroups: {} } }],
      ["a subgroup that is not an object", { hypothesis: { intent: "x", subgroups: ["a", "b"] } }],
      ["a name that is not a string", { hypothesis: hypothesis(2), name: 42 }],
      ["a null name", { hypothesis: hypothesis(2), name: null }],
    ];
    for (const key of ["id", "label", "definition"] as const) {
      for (const blank of ["", "   "]) {
        const h2 = hypothesis(2);
        h2.subgroups[1] = { ...(h2.subgroups[1] as (typeof h2.subgroups)[number]), [key]: blank };
        cases.push([`a blank subgroup ${key} (${JSON.stringify(blank)})`, { hypothesis: h2 }]);
      }
      const h3 = hypothesis(2) as { intent: string; subgroups: Record<string, unknown>[] };
      delete h3.subgroups[0]?.[key];
      cases.push([`a missing subgroup ${key}`, { hypothesis: h3 }]);
    }
    for (const reserved of [
      "unanswered",
      "__unanswered",
      "__other",
      " unanswered",
      "__other  ",
      "\t__unanswered\n",
    ]) {
      const h4 = hypothesis(3);
      (h4.subgroups[2] as { id: string }).id = reserved;
      cases.push([`the reserved id ${JSON.stringify(reserved)}`, { hypothesis: h4 }]);
    }
    const dupIds = hypothesis(3);
    (dupIds.subgroups[2] as { id: string }).id = "g1";
    cases.push(["duplicate ids", { hypothesis: dupIds }]);
    const dupIdsTrim = hypothesis(3);
    (dupIdsTrim.subgroups[2] as { id: string }).id = "  g1 ";
    cases.push(["ids duplicate after trimming", { hypothesis: dupIdsTrim }]);
    const dupLabels = hypothesis(3);
    (dupLabels.subgroups[2] as { label: string }).label = " Group 1  ";
    cases.push(["labels duplicate after trimming", { hypothesis: dupLabels }]);

    it.each(cases)("for %s, and nothing is created", async (_name, body) => {
      const before = h.sim.state.formations.size;
      const r = await h.call("POST", base("main"), body === undefined ? {} : { body });
      expectError(r, 400, "Invalid Formation input");
      expect(h.sim.state.formations.size).toBe(before);
    });
  });

  it.each([2, 15])("accepts %i subgroups", async (n) => {
    const r = await create("main", { hypothesis: hypothesis(n) });
    expect(r.status).toBe(200);
    expect(record(r.body.data.id).hypothesis).toEqual(hypothesis(n));
  });

  it("compares reserved ids exactly after trimming: other spellings are ordinary ids", async () => {
    const h5 = hypothesis(3);
    (h5.subgroups[0] as { id: string }).id = "Unanswered";
    (h5.subgroups[1] as { id: string }).id = "__OTHER";
    (h5.subgroups[2] as { id: string }).id = "_other";
    expect((await create("main", { hypothesis: h5 })).status).toBe(200);
  });

  it("answers Invalid JSON body for malformed JSON", async () => {
    const r = await h.call("POST", base("main"), {
      raw: '{"hypothesis": ',
      headers: { "content-type": "application/json" },
    });
    expectError(r, 400, "Invalid JSON body");
  });

  it("refuses an Audience without members, after the input checks", async () => {
    const r = await create("empty", { hypothesis: hypothesis(2) });
    expectError(r, 400, "Audience has no members to categorize");
    const invalid = await create("empty", { hypothesis: hypothesis(1) });
    expect(invalid.body.statusMessage).toBe("Invalid Formation input");
  });

  it("refuses more than 1000 members with FORMATION_CAP", async () => {
    const before = h.sim.state.formations.size;
    const r = await create("large", { hypothesis: hypothesis(2) });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ code: "FORMATION_CAP" });
    expect(r.body.statusMessage).toBe("Formations support at most 1000 members");
    expect(h.sim.state.formations.size).toBe(before);
  });

  it("answers 413 for a body over 64 KiB", async () => {
    const body = { hypothesis: hypothesis(2), name: "n".repeat(64 * 1024) };
    const r = await create("main", body);
    expect(r.status).toBe(413);
    const justUnder = { hypothesis: hypothesis(2), name: "n".repeat(60 * 1024) };
    expect((await create("main", justUnder)).status).toBe(200);
  });
});
