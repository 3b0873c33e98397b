/**
 * Limits at the boundary and one past it: lengths (after trimming where the contract says so), counts
 * (before deduplication), body sizes, reserved values, pagination bounds and idempotency keys.
 */
import fc from "fast-check";
import { limits, operations } from "../lib/description/contract.ts";
import { type CheckContext, type CheckDef, check } from "../lib/running/context.ts";
import {
  DUPLICATOR_NEEDS,
  deleteFormationLater,
  deleteKeyLater,
  duplicateAs,
  duplicator,
  fresh,
  hypothesis,
  memberIds,
  NO_DUPLICATOR,
  ok,
  ownerOnMain,
  padded,
  removeMemberLater,
} from "../lib/running/helpers.ts";
import { memberCapBoundary, previewSoftWarn } from "./limits/thresholds.ts";

// Every number below is the contract's (src/contract/limits.ts): change the contract and the checks follow.
const NAME = (): number => limits().apiKeyName;
const IDS = (): number => limits().mindIdsBeforeDeduplication;
const SUB_MIN = (): number => limits().subgroupsMin;
const SUB_MAX = (): number => limits().subgroupsMax;
const INPUT = (): number => limits().userInput;
const FILTERS = (): number => limits().filtersChars;
const VALUES = (): number => limits().filterValuesPerAttribute;
const PAGE = (): number => limits().formationPage;
const DUP_NAME = (): number => limits().duplicateName;
const KEY = (): number => limits().idempotencyKey;

export const keyName = check("limits/api-key-name", ["keys/name-limit"], {
  needs: { roles: ["owner"] },
  mutates: true,
  async run(ctx) {
    const stored = new Map<string, string | null>();
    const create = async (
      label: string,
      spec: { json?: unknown; body?: string },
      expected: number,
      name?: string | null,
    ) =>
      // Each key a part of its own: one answered wrongly does not end the names after it.
      ctx.part(async () => {
        const ex = await ctx.call({ op: "createApiKey", as: ctx.as("owner"), ...spec });
        if (ok(ex) && typeof ex.body?.id === "string") deleteKeyLater(ctx, ex.body.id);
        ctx.requireStatus(ex, expected, "keys/name-limit", `${label}:`);
        if (name !== undefined && typeof ex.body?.id === "string") stored.set(ex.body.id, name);
        if (name !== undefined)
          ctx.expect(
            ex.body?.name === name,
            "keys/name-limit",
            `${label}: stored name ${JSON.stringify(ex.body?.name)}, not ${JSON.stringify(name)}`,
            ex,
          );
      });
    const longest = "k".repeat(NAME());
    await create(`${NAME()} characters`, { json: { name: longest } }, 201, longest);
    await create(
      `${NAME()} characters inside whitespace`,
      { json: { name: `  ${longest}\t ` } },
      201,
      longest,
    );
    await create(`${NAME() + 1} characters`, { json: { name: "k".repeat(NAME() + 1) } }, 400);
    await create(
      `${NAME() + 1} characters inside whitespace`,
      { json: { name: ` ${"k".repeat(NAME() + 1)} ` } },
      400,
    );
    await create("empty name", { json: { name: "" } }, 201, null);
    await create("null name", { json: { name: null } }, 201, null);
    await create("no name", { json: {} }, 201, null);
    await create("no body", {}, 201, null);
    // What the creation answered is what was stored: the listing shows the same names.
    const list = await ctx.call({ op: "listApiKeys", as: ctx.as("owner") });
    const rows = new Map(
      ((list.body ?? []) as { id: string; name: string | null }[]).map((r) => [r.id, r.name]),
    );
    for (const [id, name] of stored)
      ctx.expect(
        rows.get(id) === name,
        "keys/name-limit",
        `key ${id} is listed with name ${JSON.stringify(rows.get(id))}, not ${JSON.stringify(name)}`,
        list,
      );
    ctx.coverage.limit("createApiKey:body.name:x-max-trimmed-length");
  },
});

export const memberIdCount = check("limits/member-ids", ["members/ids-limit"], {
  needs: { roles: ["owner"], changeable: ["main"], minds: ["ownLoose"] },
  mutates: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const mind = ctx.target.mind("ownLoose");
    const wasMember = (await memberIds(ctx, audienceId)).includes(mind);
    if (!wasMember) removeMemberLater(ctx, audienceId, mind);
    const add = (mindIds: string[]) =>
      ctx.call({ op: "addMembers", params: { audienceId }, as: ctx.as("owner"), json: { mindIds } });
    const past = await add(Array(IDS() + 1).fill(mind));
    ctx.expectStatus(past, 400, "members/ids-limit", `${IDS() + 1} IDs`);
    if (!wasMember)
      ctx.expect(
        !(await memberIds(ctx, audienceId)).includes(mind),
        "members/ids-limit",
        `a refused request of ${IDS() + 1} IDs added the Mind`,
        past,
      );
    const none = await add([]);
    ctx.expectStatus(none, 400, "members/ids-limit", "an empty mindIds");
    const at = await add(Array(IDS()).fill(mind));
    if (ctx.expectStatus(at, 200, "members/ids-limit", `${IDS()} IDs`))
      ctx.expect(
        at.body?.data?.added === 1,
        "members/ids-limit",
        `${IDS()} copies of one ID reported added ${JSON.stringify(at.body?.data?.added)}, not 1`,
        at,
      );
    ctx.coverage.limit("addMembers:body.mindIds:maxItems");
    ctx.coverage.limit("addMembers:body.mindIds:minItems");
    ctx.coverage.limit("addMembers:body.mindIds:x-max-items-before-deduplication");
  },
});

/** A body that is valid JSON but no operation accepts (an array): size is judged before meaning. */
function arrayOf(bytes: number): string {
  return padded("[]", bytes);
}

export const bodySizes = check("limits/body-size", ["input/body-size-413"], {
  needs: { roles: ["owner"], changeable: ["main"] },
  mutates: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    for (const o of operations().filter((x) => x.maxBodyBytes !== null && x.statuses.includes(413))) {
      const max = o.maxBodyBytes as number;
      const send = (body: string) =>
        ctx.call({
          op: o.operationId,
          params: { audienceId },
          as: ctx.as("owner"),
          body,
          headers: { "content-type": "application/json" },
        });
      const at = await send(arrayOf(max));
      ctx.expect(at.status !== 413, "input/body-size-413", `a body of exactly ${max} bytes answered 413`, at);
      const past = await send(arrayOf(max + 1));
      ctx.expectStatus(past, 413, "input/body-size-413", `a body of ${max + 1} bytes`);
      ctx.coverage.limit(`${o.operationId}:x-max-body-bytes`);
    }
    // A valid body at the limit is served, not only read.
    const preview = await ctx.call({
      op: "previewFormation",
      params: { audienceId },
      as: ctx.as("owner"),
      headers: { "content-type": "application/json", accept: "application/json" },
      body: padded(JSON.stringify({ userInput: "Split them by country" }), limits().previewBody),
    });
    ctx.expectStatus(preview, 200, "input/body-size-413", `a valid preview of ${limits().previewBody} bytes`);
  },
});

export const subgroupCounts = check("limits/subgroups", ["formations/hypothesis-rules"], {
  needs: { roles: ["owner"], changeable: ["main"] },
  mutates: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const create = async (label: string, h: unknown, expected: number) => {
      const ex = await ctx.call({
        op: "createFormation",
        params: { audienceId },
        as: ctx.as("owner"),
        json: { hypothesis: h },
      });
      if (ok(ex) && typeof ex.body?.data?.id === "string")
        deleteFormationLater(ctx, audienceId, ex.body.data.id);
      ctx.expectStatus(ex, expected, "formations/hypothesis-rules", `${label}:`);
    };
    await create(`${SUB_MIN()} subgroups`, hypothesis(SUB_MIN()), 200);
    await create(`${SUB_MAX()} subgroups`, hypothesis(SUB_MAX()), 200);
    await create(`${SUB_MAX() + 1} subgroups`, hypothesis(SUB_MAX() + 1), 400);
    await create(`${SUB_MIN() - 1} subgroup(s)`, hypothesis(SUB_MIN() - 1), 400);
    for (const reserved of ["unanswered", "__unanswered", "__other"]) {
      const h = hypothesis(3);
      (h.subgroups[1] as { id: string }).id = reserved;
      await create(`reserved id ${reserved}`, h, 400);
    }
    for (const field of ["id", "label"] as const) {
      const h = hypothesis(3);
      (h.subgroups[2] as Record<string, string>)[field] = (h.subgroups[0] as Record<string, string>)[
        field
      ] as string;
      await create(`duplicate ${field}`, h, 400);
    }
    for (const field of ["id", "label", "definition"] as const) {
      const h = hypothesis(3);
      (h.subgroups[1] as Record<string, string>)[field] = "   ";
      await create(`blank ${field}`, h, 400);
    }
    await create("blank intent", { ...hypothesis(3), intent: " \t " }, 400);
    // The same rules hold for a prior hypothesis sent to preview.
    for (const [n, expected] of [
      [SUB_MAX(), 200],
      [SUB_MAX() + 1, 400],
    ] as const) {
      const ex = await ctx.call({
        op: "previewFormation",
        params: { audienceId },
        as: ctx.as("owner"),
        headers: { accept: "application/json" },
        json: { priorHypothesis: hypothesis(n) },
      });
      ctx.expectStatus(
        ex,
        expected,
        "formations/hypothesis-rules",
        `preview with a ${n}-subgroup priorHypothesis`,
      );
    }
    for (const k of ["maxItems", "minItems", "x-unique-item-properties"])
      ctx.coverage.limit(`createFormation:body.hypothesis.subgroups:${k}`);
    ctx.coverage.limit("createFormation:body.hypothesis.subgroups[].id:not");
  },
});

export const userInput = check("limits/user-input", ["preview/thresholds"], {
  title: `preview userInput: at most ${INPUT()} characters after trimming`,
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const send = (input: string) =>
      ownerOnMain(ctx, "previewFormation", {
        headers: { accept: "application/json" },
        json: { userInput: input },
      });
    const cases: [string, string, number][] = [
      [`${INPUT()} characters`, "u".repeat(INPUT()), 200],
      [`${INPUT()} characters inside whitespace`, `   ${"u".repeat(INPUT())}\n  `, 200],
      [`${INPUT() + 1} characters`, "u".repeat(INPUT() + 1), 400],
    ];
    for (const [label, input, expected] of cases) {
      const ex = await send(input);
      ctx.expectStatus(ex, expected, "preview/thresholds", `${label}:`);
    }
    const around = fc.tuple(
      fc.integer({ min: INPUT() - 10, max: INPUT() + 10 }),
      fc.integer({ min: 0, max: 5 }),
    );
    await ctx.property(
      `length around ${INPUT()}`,
      around,
      async ([n, pad]) => {
        const ex = await send(`${" ".repeat(pad)}${"w".repeat(n)}${" ".repeat(pad)}`);
        const expected = n <= INPUT() ? 200 : 400;
        ctx.expectStatus(ex, expected, "preview/thresholds", `${n} characters (+${2 * pad} whitespace)`);
      },
      { numRuns: 6 },
    );
    ctx.coverage.limit("previewFormation:body.userInput:x-max-trimmed-length");
  },
});

export const filterLimits = check("limits/filters", ["filters/limits"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const send = (filters: string) => ownerOnMain(ctx, "getFilterAttributes", { query: { filters } });
    const ofLength = (n: number) => {
      const head = '{"industry":["';
      const tail = '"]}';
      return head + "x".repeat(n - head.length - tail.length) + tail;
    };
    const values = (n: number) => JSON.stringify({ country: Array.from({ length: n }, (_, i) => `C${i}`) });
    const cases: [string, string, number][] = [
      [`${FILTERS()} characters`, ofLength(FILTERS()), 200],
      [`${FILTERS() + 1} characters`, ofLength(FILTERS() + 1), 400],
      [`${VALUES()} values`, values(VALUES()), 200],
      [`${VALUES() + 1} values`, values(VALUES() + 1), 400],
      ["null selects Minds without a value", '{"country":null}', 200],
      ["not JSON", "{country:[DE]}", 400],
      ["unknown attribute", '{"favouriteColour":["blue"]}', 400],
      ["a string instead of an array", '{"country":"DE"}', 400],
      ["numbers as values", '{"country":[1,2]}', 400],
      ["an array instead of an object", '["country"]', 400],
    ];
    for (const [label, filters, expected] of cases) {
      const ex = await send(filters);
      ctx.expectStatus(ex, expected, "filters/limits", `${label}:`);
    }
    ctx.coverage.limit("getFilterAttributes:query:filters:maxLength");
    ctx.coverage.limit("getFilterAttributes:query:filters.*:maxItems");
    ctx.coverage.limit("getFilterAttributes:query:filters:propertyNames");
  },
});

export const pagination = check("limits/pagination", ["formations/pagination"], {
  title: `listFormations limit 1..${PAGE()} (default ${PAGE()}) and offset >= 0`,
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const list = (query: Record<string, string | number>) =>
      ctx.call({ op: "listFormations", params: { audienceId }, as: ctx.as("owner"), query });
    for (const [query, expected] of [
      [{ limit: 1 }, 200],
      [{ limit: PAGE() }, 200],
      [{ limit: 0 }, 400],
      [{ limit: PAGE() + 1 }, 400],
      [{ offset: 0 }, 200],
      [{ offset: -1 }, 400],
    ] as const) {
      const ex = await list(query);
      if (!ctx.expectStatus(ex, expected, "formations/pagination", `${JSON.stringify(query)}`)) continue;
      if (expected === 200 && "limit" in query) {
        const data = ex.body?.data ?? [];
        ctx.expect(
          data.length <= query.limit && ex.body?.pagination?.limit === query.limit,
          "formations/pagination",
          `limit ${query.limit}: ${data.length} rows, pagination.limit ${ex.body?.pagination?.limit}`,
          ex,
        );
      }
    }
    const plain = await list({});
    ctx.expect(
      plain.body?.pagination?.limit === PAGE(),
      "formations/pagination",
      `no limit: pagination.limit is ${plain.body?.pagination?.limit}, not the default ${PAGE()}`,
      plain,
    );
    for (const k of ["minimum", "maximum"]) ctx.coverage.limit(`listFormations:query:limit:${k}`);
    ctx.coverage.limit("listFormations:query:offset:minimum");
  },
});

export const duplicateLimits = check("limits/duplicate", ["duplicate/replay"], {
  title: `duplicate: name 1..${DUP_NAME()}; idempotency keys of ${KEY()} characters replay, longer ones are ignored`,
  needs: DUPLICATOR_NEEDS,
  mutates: true,
  async run(ctx) {
    const who = duplicator(ctx);
    if (!who) return ctx.inconclusive(NO_DUPLICATOR);
    const { audienceId } = who;
    const dup = (json: unknown, key?: string) =>
      duplicateAs(ctx, audienceId, who.role, json, key || undefined);
    for (const [label, name, expected] of [
      ["1 character", "d", 201],
      [`${DUP_NAME()} characters`, "d".repeat(DUP_NAME()), 201],
      [`${DUP_NAME() + 1} characters`, "d".repeat(DUP_NAME() + 1), 400],
      ["empty", "", 400],
    ] as const) {
      const ex = await dup({ name });
      ctx.expectStatus(ex, expected, "duplicate/replay", `name of ${label}:`);
    }
    const k128 = fresh("k").padEnd(KEY(), "k");
    const first = await dup({}, k128);
    const again = await dup({}, k128);
    if (
      ctx.expect(
        first.status === 201 && again.status === 200,
        "duplicate/replay",
        `a ${KEY()}-character key answered ${first.status} then ${again.status}, not 201 then 200`,
        again,
      )
    )
      ctx.expect(
        first.body?.data?.id === again.body?.data?.id,
        "duplicate/replay",
        "the replay named a different copy",
        again,
      );
    const k129 = fresh("k").padEnd(KEY() + 1, "k");
    const a = await dup({}, k129);
    const b = await dup({}, k129);
    ctx.expect(
      a.status === 201 && b.status === 201 && a.body?.data?.id !== b.body?.data?.id,
      "duplicate/replay",
      `a ${KEY() + 1}-character key (ignored) answered ${a.status} then ${b.status}${a.body?.data?.id === b.body?.data?.id ? " with the same copy" : ""}`,
      b,
    );
    ctx.coverage.limit("duplicateAudience:body.name:maxLength");
    ctx.coverage.limit("duplicateAudience:body.name:minLength");
    ctx.coverage.limit("duplicateAudience:header:x-service-idempotency-key:x-ignored-beyond-length");
  },
});

export const limitChecks: CheckDef[] = [
  keyName,
  memberIdCount,
  bodySizes,
  subgroupCounts,
  userInput,
  filterLimits,
  pagination,
  duplicateLimits,
  memberCapBoundary,
  previewSoftWarn,
];

export type { CheckContext };
