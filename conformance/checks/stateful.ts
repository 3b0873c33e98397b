/**
 * Stateful properties over sequences of calls, with fast-check model-based commands: API keys, members,
 * Formations and checkout sessions. Each command runs against the target and checks its answer against a
 * small model of what the description says must hold; every run cleans up what it made.
 */
import fc from "fast-check";
import type { CheckDef } from "../lib/context.ts";
import { fresh, hypothesis, memberIds, ok } from "../lib/helpers.ts";
import { command, runModel } from "../lib/model.ts";
import type { Role } from "../lib/target.ts";

// ---- API keys ----

interface KeyModel {
  alive: { id: string; key: string }[];
  dead: { id: string; key: string }[];
}

const KEYS_RULE =
  "API description: keys are created (key returned once), listed (no secrets), deleted (204; the key stops authenticating immediately; deleting again is 404)";

export const keysModel: CheckDef = {
  name: "stateful/api-keys",
  title: "create, use, list and delete API keys in any order: a deleted key fails at once",
  needs: { roles: ["owner"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const cmds = [
      fc.constant(
        command<KeyModel>(
          "create",
          (m) => m.alive.length < 4,
          async (m, c) => {
            const ex = await c.call({ op: "createApiKey", as: owner, json: { name: fresh("model") } });
            if (!c.expect(ex.status === 201, KEYS_RULE, `create answered ${ex.status}`, ex)) return;
            m.alive.push({ id: ex.body.id, key: ex.body.key });
          },
        ),
      ),
      fc.nat().map((i) =>
        command<KeyModel>(
          `use(${i})`,
          (m) => m.alive.length + m.dead.length > 0,
          async (m, c) => {
            const all = [
              ...m.alive.map((k) => ({ ...k, alive: true })),
              ...m.dead.map((k) => ({ ...k, alive: false })),
            ];
            const k = all[i % all.length] as { id: string; key: string; alive: boolean };
            const ex = await c.call({ op: "getMe", as: { key: k.key, label: "model" } });
            const expected = k.alive ? 200 : 401;
            c.expect(
              ex.status === expected,
              KEYS_RULE,
              `a ${k.alive ? "live" : "deleted"} key answered ${ex.status}, not ${expected}`,
              ex,
            );
          },
        ),
      ),
      fc.constant(
        command<KeyModel>(
          "list",
          () => true,
          async (m, c) => {
            const ex = await c.call({ op: "listApiKeys", as: owner });
            const ids = new Set(
              ((Array.isArray(ex.body) ? ex.body : []) as { id: string }[]).map((k) => k.id),
            );
            for (const k of m.alive) c.expect(ids.has(k.id), KEYS_RULE, `live key ${k.id} is not listed`, ex);
            for (const k of m.dead)
              c.expect(!ids.has(k.id), KEYS_RULE, `deleted key ${k.id} is still listed`, ex);
            for (const k of [...m.alive, ...m.dead])
              c.expect(!ex.text.includes(k.key), KEYS_RULE, "a listing contains a secret", ex);
          },
        ),
      ),
      fc.nat().map((i) =>
        command<KeyModel>(
          `delete(${i})`,
          (m) => m.alive.length > 0,
          async (m, c) => {
            const [k] = m.alive.splice(i % m.alive.length, 1) as [{ id: string; key: string }];
            const ex = await c.call({ op: "deleteApiKey", params: { keyId: k.id }, as: owner });
            if (!c.expect(ex.status === 204, KEYS_RULE, `delete answered ${ex.status}`, ex)) {
              m.alive.push(k);
              return;
            }
            m.dead.push(k);
            const use = await c.call({ op: "getMe", as: { key: k.key, label: "deleted" } });
            c.expect(
              use.status === 401,
              KEYS_RULE,
              `the key deleted a moment ago answered ${use.status}, not 401`,
              use,
            );
          },
        ),
      ),
      fc.nat().map((i) =>
        command<KeyModel>(
          `delete-again(${i})`,
          (m) => m.dead.length > 0,
          async (m, c) => {
            const k = m.dead[i % m.dead.length] as { id: string };
            const ex = await c.call({ op: "deleteApiKey", params: { keyId: k.id }, as: owner });
            c.expect(
              ex.status === 404,
              KEYS_RULE,
              `deleting a deleted key answered ${ex.status}, not 404`,
              ex,
            );
          },
        ),
      ),
    ];
    await runModel<KeyModel>(
      ctx,
      "key commands",
      cmds,
      async () => ({ alive: [], dead: [] }),
      async (m) => {
        for (const k of m.alive) await ctx.call({ op: "deleteApiKey", params: { keyId: k.id }, as: owner });
      },
      6,
      [0, 0, 2, 3, 1, 4, 2],
    );
  },
};

// ---- members ----

interface MemberModel {
  members: Set<string>;
  accessible: string[];
  inaccessible: string[];
}

const MEMBERS_RULE =
  "API description, members: POST adds Minds owned by the caller or public (404 and nothing added otherwise; `added` = distinct IDs); DELETE removes the Mind from the Audience and from every Formation subgroup of that Audience (204, also for non-members)";

export const membersModel: CheckDef = {
  name: "stateful/members",
  title:
    "add and remove members in any order: detail lists exactly the members; removed members leave every Formation",
  needs: { roles: ["owner"], changeable: ["main"], minds: ["ownLoose"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const audienceId = ctx.target.audience("main");
    const accessible = ["ownLoose", "publicMind"]
      .filter((h) => ctx.info.minds[h])
      .map((h) => ctx.target.mind(h));
    const inaccessible = ["foreignMind"].filter((h) => ctx.info.minds[h]).map((h) => ctx.target.mind(h));
    const initial = new Set((await memberIds(ctx, audienceId)).filter((id) => accessible.includes(id)));
    const readyFormations = async () => {
      const list = await ctx.call({ op: "listFormations", params: { audienceId }, as: owner });
      return ((list.body?.data ?? []) as { id: string; status?: string }[])
        .filter((f) => f.status === "ready")
        .slice(0, 3);
    };
    const cmds = [
      fc.subarray([...accessible, ...inaccessible], { minLength: 1 }).chain((ids) =>
        fc.boolean().map((dupe) =>
          command<MemberModel>(
            `add(${ids.length}${dupe ? ", repeated" : ""})`,
            () => true,
            async (m, c) => {
              const sent = dupe ? [...ids, ...ids] : ids;
              const ex = await c.call({
                op: "addMembers",
                params: { audienceId },
                as: owner,
                json: sent.length === 1 ? { mindId: sent[0] } : { mindIds: sent },
              });
              if (ids.some((id) => m.inaccessible.includes(id))) {
                c.expect(
                  ex.status === 404,
                  MEMBERS_RULE,
                  `adding an inaccessible Mind answered ${ex.status}, not 404`,
                  ex,
                );
                return;
              }
              if (
                !c.expect(
                  ex.status === 200,
                  MEMBERS_RULE,
                  `adding accessible Minds answered ${ex.status}`,
                  ex,
                )
              )
                return;
              c.expect(
                ex.body?.data?.added === new Set(ids).size,
                MEMBERS_RULE,
                `added ${ex.body?.data?.added} for ${new Set(ids).size} distinct IDs`,
                ex,
              );
              for (const id of ids) m.members.add(id);
            },
          ),
        ),
      ),
      fc.constantFrom(...accessible).map((id) =>
        command<MemberModel>(
          "remove",
          () => true,
          async (m, c) => {
            const ex = await c.call({ op: "removeMember", params: { audienceId, mindId: id }, as: owner });
            if (!c.expect(ex.status === 204, MEMBERS_RULE, `remove answered ${ex.status}, not 204`, ex))
              return;
            m.members.delete(id);
            for (const f of await readyFormations()) {
              const g = await c.call({
                op: "getFormation",
                params: { audienceId, formationId: f.id },
                as: owner,
              });
              c.expect(
                !JSON.stringify(g.body?.data?.subgroups ?? []).includes(id),
                MEMBERS_RULE,
                `Formation ${f.id} still assigns the removed Mind`,
                g,
              );
            }
          },
        ),
      ),
      fc.constant(
        command<MemberModel>(
          "settle",
          () => ctx.target.isSimulator,
          async (_m, c) => {
            await c.target.advance(2_000);
          },
        ),
      ),
      fc.constant(
        command<MemberModel>(
          "detail",
          () => true,
          async (m, c) => {
            const now = await memberIds(c, audienceId);
            for (const id of accessible)
              c.expect(
                now.includes(id) === m.members.has(id),
                MEMBERS_RULE,
                `Mind ${id} is ${now.includes(id) ? "" : "not "}a member, the model says ${m.members.has(id) ? "it is" : "it is not"}`,
                null,
              );
            for (const id of inaccessible)
              c.expect(!now.includes(id), MEMBERS_RULE, `inaccessible Mind ${id} became a member`, null);
          },
        ),
      ),
    ];
    await runModel<MemberModel>(
      ctx,
      "member commands",
      cmds,
      async () => ({ members: new Set(await memberIds(ctx, audienceId)), accessible, inaccessible }),
      async () => {
        for (const id of accessible) {
          const now = (await memberIds(ctx, audienceId)).includes(id);
          if (now && !initial.has(id))
            await ctx.call({ op: "removeMember", params: { audienceId, mindId: id }, as: owner });
          if (!now && initial.has(id))
            await ctx.call({ op: "addMembers", params: { audienceId }, as: owner, json: { mindId: id } });
        }
      },
      5,
      [0, 2, 1, 3, 0, 3],
    );
  },
};

// ---- Formations ----

interface FormationModel {
  alive: Map<string, string>;
  deleted: string[];
}

const FORMATIONS_RULE =
  "API description, Formations: POST creates (200 { id, name, status building|ready|failed }); a build leaves building for ready or failed, progress null once ready; recompute answers 200 { id, status }; DELETE 204 then 404 and not listed";

export const formationsModel: CheckDef = {
  name: "stateful/formations",
  title:
    "create, settle, recompute, read and delete Formations: builds leave `building`, deleted ones disappear",
  needs: { roles: ["owner"], changeable: ["main"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const audienceId = ctx.target.audience("main");
    const get = (formationId: string) =>
      ctx.call({ op: "getFormation", params: { audienceId, formationId }, as: owner });
    const pick = (m: FormationModel, i: number) => [...m.alive.keys()][i % m.alive.size] as string;
    const cmds = [
      fc.integer({ min: 2, max: 6 }).map((n) =>
        command<FormationModel>(
          `create(${n})`,
          (m) => m.alive.size < 3,
          async (m, c) => {
            const ex = await c.call({
              op: "createFormation",
              params: { audienceId },
              as: owner,
              json: { hypothesis: hypothesis(n, `m${m.alive.size}x`) },
            });
            if (!c.expect(ex.status === 200, FORMATIONS_RULE, `create answered ${ex.status}`, ex)) return;
            m.alive.set(ex.body.data.id, ex.body.data.status);
          },
        ),
      ),
      fc.constant(
        command<FormationModel>(
          "settle",
          (m) => m.alive.size > 0,
          async (m, c) => {
            const settled = await c.waitUntil(async () => {
              for (const id of m.alive.keys())
                if ((await get(id)).body?.data?.status === "building") return false;
              return true;
            });
            for (const id of m.alive.keys()) {
              const ex = await get(id);
              const d = ex.body?.data ?? {};
              c.expect(
                settled && d.status !== "building",
                FORMATIONS_RULE,
                `Formation ${id} is still building after the wait`,
                ex,
              );
              if (d.status === "ready")
                c.expect(
                  d.progress === null,
                  FORMATIONS_RULE,
                  `a ready Formation has progress ${JSON.stringify(d.progress)}`,
                  ex,
                );
              m.alive.set(id, d.status);
            }
          },
        ),
      ),
      fc.nat().map((i) =>
        command<FormationModel>(
          `recompute(${i})`,
          (m) => m.alive.size > 0,
          async (m, c) => {
            const id = pick(m, i);
            const ex = await c.call({
              op: "recomputeFormation",
              params: { audienceId, formationId: id },
              as: owner,
            });
            if (c.expect(ex.status === 200, FORMATIONS_RULE, `recompute answered ${ex.status}`, ex))
              c.expect(
                ex.body?.data?.id === id,
                FORMATIONS_RULE,
                `recompute answered for ${ex.body?.data?.id}`,
                ex,
              );
            m.alive.set(id, "building");
          },
        ),
      ),
      fc.nat().map((i) =>
        command<FormationModel>(
          `read(${i})`,
          (m) => m.alive.size + m.deleted.length > 0,
          async (m, c) => {
            const all = [...m.alive.keys(), ...m.deleted];
            const id = all[i % all.length] as string;
            const ex = await get(id);
            const expected = m.alive.has(id) ? 200 : 404;
            c.expect(
              ex.status === expected,
              FORMATIONS_RULE,
              `reading a ${expected === 200 ? "live" : "deleted"} Formation answered ${ex.status}`,
              ex,
            );
          },
        ),
      ),
      fc.nat().map((i) =>
        command<FormationModel>(
          `delete(${i})`,
          (m) => m.alive.size > 0,
          async (m, c) => {
            const id = pick(m, i);
            const ex = await c.call({
              op: "deleteFormation",
              params: { audienceId, formationId: id },
              as: owner,
            });
            if (!c.expect(ex.status === 204, FORMATIONS_RULE, `delete answered ${ex.status}`, ex)) return;
            m.alive.delete(id);
            m.deleted.push(id);
            const list = await c.call({ op: "listFormations", params: { audienceId }, as: owner });
            c.expect(!list.text.includes(id), FORMATIONS_RULE, "a deleted Formation is still listed", list);
          },
        ),
      ),
    ];
    await runModel<FormationModel>(
      ctx,
      "formation commands",
      cmds,
      async () => ({ alive: new Map(), deleted: [] }),
      async (m) => {
        for (const id of m.alive.keys())
          await ctx.call({ op: "deleteFormation", params: { audienceId, formationId: id }, as: owner });
      },
      5,
      [0, 1, 2, 1, 3, 4, 3],
    );
  },
};

// ---- checkout ----

interface SessionModel {
  sessions: { id: string; status: string }[];
}

const CHECKOUT_RULE =
  "API description, hosted checkout: create 201; GET 200 an owned session; POST {id} 200 refreshed session; cancel 200 cancels an owned, open session; complete 200 returns status requires_escalation with continue_url until the buyer completes; other callers get 404";

export const checkoutModel: CheckDef = {
  name: "stateful/checkout",
  title: "create, read, refresh, cancel and complete checkout sessions in any order",
  needs: { roles: ["owner"], prices: ["credits"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const price = ctx.info.prices.credits as { id: string; currency: string };
    const other: Role | null = ctx.target.has("teammate") ? "teammate" : null;
    const pick = (m: SessionModel, i: number) =>
      m.sessions[i % m.sessions.length] as { id: string; status: string };
    const cmds = [
      fc.constant(
        command<SessionModel>(
          "create",
          (m) => m.sessions.length < 3,
          async (m, c) => {
            const ex = await c.call({
              op: "createCheckoutSession",
              as: owner,
              json: { line_items: [{ id: price.id }], currency: price.currency, capabilities: {} },
              headers: { "idempotency-key": fresh("model").replaceAll(/[^a-zA-Z0-9_-]/g, "") },
            });
            if (!c.expect(ex.status === 201, CHECKOUT_RULE, `create answered ${ex.status}`, ex)) return;
            m.sessions.push({ id: ex.body.id, status: ex.body.status });
          },
        ),
      ),
      fc.tuple(fc.nat(), fc.constantFrom("get", "refresh")).map(([i, how]) =>
        command<SessionModel>(
          `${how}(${i})`,
          (m) => m.sessions.length > 0,
          async (m, c) => {
            const s = pick(m, i);
            const ex = await c.call({
              op: how === "get" ? "getCheckoutSession" : "refreshCheckoutSession",
              params: { id: s.id },
              as: owner,
            });
            if (c.expect(ex.status === 200, CHECKOUT_RULE, `${how} answered ${ex.status}`, ex))
              c.expect(
                ex.body?.id === s.id && ex.body?.status === s.status,
                CHECKOUT_RULE,
                `${how} shows ${ex.body?.id} ${ex.body?.status}, the model has ${s.status}`,
                ex,
              );
          },
        ),
      ),
      fc.nat().map((i) =>
        command<SessionModel>(
          `cancel(${i})`,
          (m) => m.sessions.length > 0,
          async (m, c) => {
            const s = pick(m, i);
            const ex = await c.call({ op: "cancelCheckoutSession", params: { id: s.id }, as: owner });
            if (!c.expect(ex.status === 200, CHECKOUT_RULE, `cancel answered ${ex.status}`, ex)) return;
            const expected = s.status === "completed" ? "completed" : "canceled";
            c.expect(
              ex.body?.status === expected,
              CHECKOUT_RULE,
              `after cancel the status is ${ex.body?.status}, not ${expected}`,
              ex,
            );
            s.status = ex.body?.status ?? s.status;
          },
        ),
      ),
      fc.nat().map((i) =>
        command<SessionModel>(
          `complete(${i})`,
          (m) => m.sessions.length > 0,
          async (m, c) => {
            const s = pick(m, i);
            const ex = await c.call({ op: "completeCheckoutSession", params: { id: s.id }, as: owner });
            if (!c.expect(ex.status === 200, CHECKOUT_RULE, `complete answered ${ex.status}`, ex)) return;
            if (s.status === "canceled")
              c.expect(
                ex.body?.status === "canceled",
                CHECKOUT_RULE,
                `completing a canceled session made it ${ex.body?.status}`,
                ex,
              );
            else
              c.expect(
                ex.body?.status === "requires_escalation" && typeof ex.body?.continue_url === "string",
                CHECKOUT_RULE,
                `complete without buyer checkout answered status ${ex.body?.status}`,
                ex,
              );
            s.status = ex.body?.status ?? s.status;
          },
        ),
      ),
      fc.nat().map((i) =>
        command<SessionModel>(
          `peek(${i})`,
          (m) => m.sessions.length > 0 && other !== null,
          async (m, c) => {
            const s = pick(m, i);
            const ex = await c.call({
              op: "getCheckoutSession",
              params: { id: s.id },
              as: c.as(other as Role),
            });
            c.expect(
              ex.status === 404,
              CHECKOUT_RULE,
              `another account reading the session answered ${ex.status}, not 404`,
              ex,
            );
          },
        ),
      ),
    ];
    await runModel<SessionModel>(
      ctx,
      "checkout commands",
      cmds,
      async () => ({ sessions: [] }),
      async (m) => {
        for (const s of m.sessions.filter((x) => x.status !== "canceled" && x.status !== "completed"))
          await ctx.call({ op: "cancelCheckoutSession", params: { id: s.id }, as: owner });
      },
      5,
      [0, 1, 3, 4, 2, 3, 1],
    );
  },
};

export const statefulChecks: CheckDef[] = [keysModel, membersModel, formationsModel, checkoutModel];

export { ok };
