/**
 * The deliberate faults that the world model's check (checks/world.ts) must report: faults that only show
 * across requests, where each answer alone is valid and only a second call (another prefix, another role, a
 * re-read, a replay) shows that the server forgot or leaked something. One or more per rule of the model.
 */

import * as checks from "../../checks/world.ts";
import type { FaultCase } from "../fault-kit.ts";
import { asCaller, bodyOf, casesOf, editWhen, is, on, withBody } from "../fault-kit.ts";
import type { Fault, FaultEnv } from "../harness.ts";
import { answer, callerOf, editJson, envelope, keyOf, pathOf } from "../harness.ts";
import { as, hiddenFrom, keyFor, keyPerBody, remember, resentAs, servedAsOwner } from "./helpers.ts";

const removedMembers = (env: FaultEnv) => remember(env, "removed", () => new Set<string>());

/** Notes every member the owner removed (the simulator still does the removal). */
async function noteRemoval(req: Request, next: (r: Request) => Promise<Response>, env: FaultEnv) {
  const res = await next(req);
  const m = /\/members\/([0-9a-f-]{36})$/.exec(pathOf(req));
  if (req.method === "DELETE" && m && res.status === 204) removedMembers(env).add(m[1] as string);
  return res;
}

/**
 * A deleted key keeps working under one prefix: requests there are served as the account that deleted it
 * (whose key still works), as a server with a per-prefix key cache would.
 */
function deletedKeyAlive(prefix: string): Fault {
  return async (req, next, env) => {
    const secrets = remember(env, "secrets", () => new Map<string, string>());
    const deleted = remember(env, "deleted", () => new Map<string, string>());
    const key = keyOf(req) ?? "";
    const stand = deleted.get(key);
    if (stand && pathOf(req).startsWith(prefix)) return next(as(req, stand));
    const res = await next(req);
    if (is(req, "POST", /\/api-keys$/) && res.status === 201) {
      const body = (await res.clone().json()) as { id: string; key: string };
      secrets.set(body.id, body.key);
    }
    const m = /\/api-keys\/(c[a-z0-9]{24})$/.exec(pathOf(req));
    const gone = m && secrets.get(m[1] as string);
    if (req.method === "DELETE" && res.status === 204 && gone && gone !== key) deleted.set(gone, key);
    return res;
  };
}

/** Rewrites every Formation detail with `edit`. */
function editFormation(edit: (data: Record<string, unknown>) => void): Fault {
  return async (req, next) => {
    const res = await next(req);
    if (!is(req, "GET", /\/formations\/[0-9a-f-]{36}$/)) return res;
    return editJson(res, (b) => {
      if (b?.data) edit(b.data);
    });
  };
}

export const WORLD_FAULTS: FaultCase[] = [
  ...casesOf(checks.world, {
    "the preview stream keeps counting the members it first saw": async (req, next, env) => {
      const res = await next(req);
      if (!is(req, "POST", /\/formations\/preview$/) || res.status !== 200) return res;
      if (!(res.headers.get("content-type") ?? "").includes("ndjson")) return res;
      const first = remember(env, "preview-counts", () => new Map<string, number>());
      const text = await res.text();
      const lines = text.split("\n").map((l) => {
        if (!l.includes('"meta"')) return l;
        const e = JSON.parse(l) as { data: { memberCount: number } };
        const seen = first.get(pathOf(req));
        if (seen === undefined) first.set(pathOf(req), e.data.memberCount);
        else e.data.memberCount = seen;
        return JSON.stringify(e);
      });
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      return new Response(lines.join("\n"), { status: 200, headers });
    },
    // Deleted for real, then served as the account that deleted it wherever it is used.
    "a deleted key keeps authenticating": deletedKeyAlive("/"),
    "a removed member stays in Formation subgroups": async (req, next, env) => {
      const removed = (env.memory.get("removed") as Set<string> | undefined) ?? new Set<string>();
      env.memory.set("removed", removed);
      const m = /\/members\/([0-9a-f-]{36})$/.exec(pathOf(req));
      if (req.method === "DELETE" && m) removed.add(m[1] as string);
      const res = await next(req);
      if (req.method === "GET" && /\/formations\/[0-9a-f-]{36}$/.test(pathOf(req)) && removed.size > 0)
        return editJson(res, (b) => {
          b?.data?.subgroups?.[0]?.members?.push(
            ...[...removed].map((mindId) => ({ mindId, confidence: 0.5 })),
          );
        });
      return res;
    },
    // Deleted for real, but its last answer is served from a cache to anyone with a key.
    "a deleted Formation is still readable": async (req, next, env) => {
      const cache = remember(env, "deletedFormations", () => new Map<string, string>());
      const path = pathOf(req);
      if (!/\/formations\/[0-9a-f-]{36}$/.test(path)) return next(req);
      const hit = cache.get(path);
      if (req.method === "GET" && hit && callerOf(req, env) !== null)
        return answer(200, JSON.parse(hit), { "cache-control": "private, no-store" });
      if (req.method !== "DELETE") return next(req);
      const before = await next(new Request(req.url, { method: "GET", headers: req.headers }));
      const res = await next(req);
      if (res.status === 204 && before.status === 200) cache.set(path, await before.text());
      return res;
    },
    "cancelling a checkout session leaves it open": async (req, next) => {
      if (is(req, "POST", /\/cancel$/))
        return next(new Request(req.url.replace(/\/cancel$/, ""), { method: "GET", headers: req.headers }));
      return next(req);
    },
    "a deleted key keeps working under /v1": deletedKeyAlive("/v1/"),
    'PUT reads a flag sent as a string ("false") as a boolean': async (req, next) => {
      if (!is(req, "PUT", /\/audiences\/[0-9a-f-]{36}$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const body = json as Record<string, unknown>;
      for (const f of ["isPublic", "isSharedWithTeam"])
        if (typeof body?.[f] === "string") body[f] = body[f] === "true";
      return next(withBody(copy, body));
    },
    "an Audience detail served from a per-caller cache (stale after PUT)": async (req, next, env) => {
      if (!is(req, "GET", /\/audiences\/[0-9a-f-]{36}$/)) return next(req);
      const cache = remember(env, "details", () => new Map<string, string>());
      const id = `${keyOf(req)} ${pathOf(req)}`;
      const hit = cache.get(id);
      if (hit) return answer(200, JSON.parse(hit));
      const res = await next(req);
      if (res.status === 200) cache.set(id, await res.clone().text());
      return res;
    },
    "following twice answers 409": async (req, next, env) => {
      if (!is(req, "POST", /\/follow$/)) return next(req);
      const seen = remember(env, "follows", () => new Set<string>());
      const id = `${keyOf(req)} ${pathOf(req)}`;
      const res = await next(req);
      if (res.status !== 200) return res;
      if (seen.has(id)) return envelope(409, "Already following", pathOf(req));
      seen.add(id);
      return res;
    },
    "unfollowing an Audience one does not follow answers 404": async (req, next, env) => {
      const following = remember(env, "following", () => new Set<string>());
      const id = `${keyOf(req)} ${pathOf(req)}`;
      if (is(req, "POST", /\/follow$/)) {
        const res = await next(req);
        if (res.status === 200) following.add(id);
        return res;
      }
      if (!is(req, "DELETE", /\/follow$/) || callerOf(req, env) === null) return next(req);
      if (!following.delete(id)) return envelope(404, "Not following", pathOf(req));
      return next(req);
    },
    "a removed member is still counted in its Formation subgroup": async (req, next, env) => {
      const res = await noteRemoval(req, next, env);
      if (!is(req, "GET", /\/formations\/[0-9a-f-]{36}$/) || removedMembers(env).size === 0) return res;
      return editJson(res, (b) => {
        const g = b?.data?.subgroups?.find(
          (x: { memberCount?: number }) => typeof x.memberCount === "number",
        );
        if (g) g.memberCount += 1;
      });
    },
    "the Formation list counts one member more in a subgroup than the Formation assigns": async (
      req,
      next,
    ) => {
      const res = await next(req);
      if (!is(req, "GET", /\/formations$/)) return res;
      return editJson(res, (b) => {
        for (const row of b?.data ?? [])
          if (row.status === "ready")
            for (const g of row.subgroups ?? []) if (typeof g.memberCount === "number") g.memberCount += 1;
      });
    },
    "filter attributes still count a removed member": async (req, next, env) => {
      const res = await noteRemoval(req, next, env);
      if (!is(req, "GET", /\/filter-attributes$/)) return res;
      return editJson(res, (b) => {
        if (b?.data) b.data.totalMinds += removedMembers(env).size;
      });
    },
    "progress still lists a removed member": async (req, next, env) => {
      const res = await noteRemoval(req, next, env);
      if (!is(req, "GET", /\/progress$/)) return res;
      return editJson(res, (b) => {
        for (const mindId of removedMembers(env))
          b?.data?.members?.push({
            mindId,
            update: {
              readyToChat: true,
              learningInBackground: false,
              fullyTrained: true,
              trainingStatus: "completed",
            },
          });
      });
    },
    "a Study viewer may delete a shared Formation": servedAsOwner(
      "studyViewer",
      "DELETE",
      /\/formations\/[0-9a-f-]{36}$/,
    ),
    "a Study viewer may delete the Audience": async (req, next, env) =>
      is(req, "DELETE", /\/audiences\/[0-9a-f-]{36}$/) && callerOf(req, env) === "studyViewer"
        ? answer(204)
        : next(req),
    "a direct admin may add members": servedAsOwner("admin", "POST", /\/members$/),
    "a private Formation of a public viewer is shown to the owner": async (req, next, env) => {
      const creators = remember(env, "creators", () => new Map<string, string>());
      const res = await next(req);
      if (is(req, "POST", /\/formations$/) && res.status === 200) {
        const id = ((await res.clone().json()) as { data: { id: string } }).data.id;
        creators.set(id, keyOf(req) ?? "");
      }
      const m = /\/formations\/([0-9a-f-]{36})$/.exec(pathOf(req));
      const creator = m && creators.get(m[1] as string);
      if (req.method === "GET" && res.status === 404 && creator && callerOf(req, env) === "owner")
        return next(as(req, creator));
      return res;
    },
    "hasMore true on a last page that ends at a multiple of limit": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/formations$/)) return res;
      return editJson(res, (b) => {
        const p = b?.pagination;
        if (p && p.offset + p.limit === p.total) {
          p.hasMore = true;
          p.nextOffset = p.total;
        }
      });
    },
    "the same idempotency key with a different purchase makes a second session": keyPerBody(
      /\/checkout_sessions$/,
      "idempotency-key",
      "quantity",
    ),
    "an idempotency key replays another account's session": async (req, next, env) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const first = remember(env, "sessionsByKey", () => new Map<string, string>());
      const k = req.headers.get("idempotency-key") ?? "";
      const hit = callerOf(req, env) !== null && first.get(k);
      if (hit) return new Response(hit, { status: 201, headers: { "content-type": "application/json" } });
      const res = await next(req);
      if (res.status === 201) first.set(k, await res.clone().text());
      return res;
    },
    "another account may cancel a session": async (req, next, env) => {
      const owners = remember(env, "sessionOwners", () => new Map<string, string>());
      const res = await next(req);
      if (is(req, "POST", /\/checkout_sessions$/) && res.status === 201)
        owners.set(((await res.clone().json()) as { id: string }).id, keyOf(req) ?? "");
      const m = /\/checkout_sessions\/([^/]+)\/cancel$/.exec(pathOf(req));
      const owner = m && owners.get(m[1] as string);
      if (req.method === "POST" && res.status === 404 && owner) return next(as(req, owner));
      return res;
    },
    "PUT answers the new name but keeps the old one": async (req, next, env) => {
      const names = remember(env, "names", () => new Map<string, string>());
      if (!is(req, "PUT", /\/audiences\/[0-9a-f-]{36}$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const body = json as { name?: string };
      const first = names.get(pathOf(req)) ?? (typeof body?.name === "string" ? body.name.trim() : "");
      names.set(pathOf(req), first);
      const res = await next(withBody(copy, { ...body, name: first }));
      return editJson(res, (b) => {
        if (b?.data && typeof body?.name === "string") b.data.name = body.name.trim();
      });
    },
    "a deleted key still authenticates on the checkout endpoints": deletedKeyAlive("/api/acp/"),
    "a preview persists a Formation": async (req, next, env) => {
      const res = await next(req);
      if (!is(req, "POST", /\/formations\/preview$/) || res.status !== 200) return res;
      const hypothesis = {
        intent: "Persisted by a preview",
        subgroups: [
          { id: "p1", label: "One", definition: "People who describe themselves as senior" },
          { id: "p2", label: "Two", definition: "People who describe themselves as junior" },
        ],
      };
      const url = req.url.replace(/\/preview$/, "");
      await env.sim.fetch(asCaller(req, url, "POST", { hypothesis }));
      return res;
    },
    "a recompute replaces the stored hypothesis": async (req, next, env) => {
      const recomputed = remember(env, "recomputed", () => new Set<string>());
      const m = /\/formations\/([0-9a-f-]{36})(\/recompute)?$/.exec(pathOf(req));
      if (m && req.method === "POST" && m[2]) recomputed.add(m[1] as string);
      const res = await next(req);
      if (!m || req.method !== "GET" || !recomputed.has(m[1] as string)) return res;
      return editJson(res, (b) => {
        const g = b?.data?.hypothesis?.subgroups?.[0];
        if (g) g.id = `${g.id}-re`;
      });
    },
    "a refresh re-prices the session": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/checkout_sessions\/[^/]+$/)) return res;
      return editJson(res, (b) => {
        const li = b?.line_items?.[0];
        if (li) li.unit_amount += 100;
      });
    },
    "deleting one key deletes every key of its account": async (req, next, env) => {
      const made = remember(env, "madeBy", () => new Map<string, string[]>());
      const dead = remember(env, "dead", () => new Set<string>());
      const key = keyOf(req) ?? "";
      if (dead.has(key)) return envelope(401, "Unauthorized", pathOf(req));
      const res = await next(req);
      if (is(req, "POST", /\/api-keys$/) && res.status === 201)
        made.set(key, [...(made.get(key) ?? []), ((await res.clone().json()) as { key: string }).key]);
      if (req.method === "DELETE" && /\/api-keys\//.test(pathOf(req)) && res.status === 204)
        for (const k of made.get(key) ?? []) dead.add(k);
      return res;
    },
    "removing a member deletes the Mind itself": async (req, next, env) => {
      const gone = remember(env, "goneMinds", () => new Set<string>());
      const m = /\/members\/([0-9a-f-]{36})$/.exec(pathOf(req));
      if (m && req.method === "DELETE") gone.add(m[1] as string);
      if (is(req, "POST", /\/members$/)) {
        const { req: copy, json } = await bodyOf(req);
        const body = json as { mindId?: string; mindIds?: string[] };
        const ids = body?.mindId ? [body.mindId] : (body?.mindIds ?? []);
        if (ids.some((id) => gone.has(id)))
          return envelope(404, "One or more Minds not found or not accessible", pathOf(req));
        return next(copy);
      }
      return next(req);
    },
    "a removed collaborator keeps access to the Audience's Formations": async (req, next, env) => {
      const removed = remember(env, "removedUsers", () => new Set<string>());
      const caller = callerOf(req, env);
      const callerId = caller ? env.sim.manifest().users[caller]?.id : undefined;
      if (callerId && removed.has(callerId) && /\/formations(\/|$)/.test(pathOf(req)))
        return next(as(req, keyFor(env, "owner")));
      const m = /\/collaborators\/([0-9a-f-]{36})$/.exec(pathOf(req));
      const res = await next(req);
      if (req.method === "DELETE" && m && res.status === 200) removed.add(m[1] as string);
      return res;
    },
    "a duplicate shares the original's Minds instead of copying them": async (req, next, env) => {
      const res = await next(req);
      if (!is(req, "POST", /\/duplicate$/) || res.status !== 201) return res;
      const original = await env.sim.fetch(asCaller(req, req.url.replace(/\/duplicate$/, "")));
      const minds = ((await original.json()) as { data?: { minds?: unknown[] } }).data?.minds;
      return editJson(res, (b) => {
        if (b?.data && minds) b.data.minds = minds;
      });
    },
    "a team member keeps exporting the validation report after team sharing is off": servedAsOwner(
      "teammate",
      "POST",
      /\/export$/,
    ),
  }),
  ...casesOf(checks.world, {
    "a ready Formation keeps its build progress": editFormation((d) => {
      if (d.status === "ready") d.progress = { percent: 100 };
    }),
    "Formation builds never finish": editFormation((d) =>
      Object.assign(d, { status: "building", progress: { percent: 50 } }),
    ),
  }),
  ...casesOf(checks.world, {
    // A collaborator's Formation is shared: made as the owner, a viewer's Formation is seen by everyone.
    "a public viewer's Formation is shared": async (req, next, env) => {
      const viewer = ["outsider", "studyViewer"].includes(callerOf(req, env) ?? "");
      return is(req, "POST", /\/formations$/) && viewer ? next(as(req, keyFor(env, "owner"))) : next(req);
    },
    "a viewer may delete a shared Formation": resentAs(
      "DELETE",
      /\/formations\/[^/]+$/,
      404,
      (h) => h !== "owner",
    ),
    "a public viewer's preview refused as hidden": hiddenFrom(
      "POST",
      /\/formations\/preview$/,
      (h) => h === "outsider" || h === "studyViewer",
    ),
    "complete answers `completed` at once": editWhen(on("POST", /\/complete$/, 200), (b) => {
      if (b?.status === "requires_escalation") b.status = "completed";
    }),
  }),
  ...casesOf(checks.world, {
    "an Audience admin may remove members": resentAs(
      "DELETE",
      /\/members\/[^/]+$/,
      404,
      (h) => h !== "owner",
    ),
    "an added Mind is never sorted into the Audience's ready Formations": async (req, next, env) => {
      const late = (env.memory.get("late") ?? new Set()) as Set<string>;
      env.memory.set("late", late);
      if (is(req, "POST", /\/members$/)) {
        const { req: again, json } = await bodyOf(req);
        const j = (json ?? {}) as { mindId?: string; mindIds?: string[] };
        for (const id of j.mindId ? [j.mindId] : (j.mindIds ?? [])) late.add(id);
        return next(again);
      }
      const res = await next(req);
      if (!is(req, "GET", /\/formations\/[^/]+$/) || res.status !== 200) return res;
      return editJson(res, (b) => {
        const text = JSON.stringify(b?.data?.subgroups ?? []);
        if ([...late].some((id) => text.includes(id)))
          b.data.subgroups = JSON.parse(
            [...late].reduce((t, id) => t.replaceAll(id, "00000000-0000-4000-8000-000000000000"), text),
          );
      });
    },
  }),
];
