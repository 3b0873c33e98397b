/**
 * Isolation across every endpoint of the contract and every user of the default scenario: no key reads or
 * changes what its role may not (refused with a 4xx, 404 where the resource's existence is hidden, and the
 * state digest unchanged), no response ever carries another user's secret, and a deleted key never
 * authenticates again. Runs in-process (the HTTP host adds nothing to access rules).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerProblems } from "../../testing/robustness.ts";
import { type Operation, operations } from "../contract/operations.ts";
import type { Snapshot } from "../core/persistence/snapshot.ts";
import { stateDigest } from "../core/world/digest.ts";
import type { Manifest } from "../core/world/manifest.ts";
import { createSimulator, type Simulator } from "../simulator.ts";

/**
 * Operations that change an Audience or what hangs off it, as opposed to the caller's own records (a
 * Formation a reader creates is their own, a duplicate is their copy, following is on their account).
 */
const AUDIENCE_MUTATIONS = new Set([
  "updateAudience",
  "deleteAudience",
  "removeCollaborator",
  "addMembers",
  "removeMember",
  "deleteFormation",
  "recomputeFormation",
  "recalibrateAudience",
]);

const SECRET = /service_[A-Za-z0-9]{20,}/g;

let sim: Simulator;
let m: Manifest;
let initial: Snapshot;
let initialDigest: string;
const bugs: unknown[] = [];
/** Raw keys each role legitimately learned (its own, and the ones it created). */
const own = new Map<string, Set<string>>();
let sessionId = "";

interface Result {
  status: number;
  text: string;
  headers: Headers;
}

let idempotency = 0;

async function call(key: string, method: string, path: string, body?: unknown): Promise<Result> {
  // Checkout creation needs an Idempotency-Key; a fresh one each time, so no call replays another.
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    "idempotency-key": `iso-${++idempotency}`,
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await sim.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
  const text = method === "HEAD" ? "" : await res.text();
  return { status: res.status, text, headers: res.headers };
}

/** Every secret in an answer must be one the caller already holds. */
function leaks(role: Role, r: Result): string[] {
  const mine = own.get(role) ?? new Set();
  const found = [...r.text.matchAll(SECRET), ...[...r.headers.values()].join("\n").matchAll(SECRET)].map(
    (x) => x[0],
  );
  return found.filter((k) => !mine.has(k));
}

function keyOf(role: Role): string {
  return m.users[role]?.apiKey as string;
}

function bodyFor(op: Operation): unknown {
  switch (op.operationId) {
    case "createApiKey":
      return { name: "isolation" };
    case "updateAudience":
      return { name: "Taken over" };
    case "duplicateAudience":
    case "previewFormation":
      return {};
    case "addMembers":
      return { mindId: m.minds.ownLoose?.id };
    case "createFormation":
      return {
        hypothesis: {
          intent: "Split by seniority",
          subgroups: [
            { id: "junior", label: "Junior", definition: "Early-career staff" },
            { id: "senior", label: "Senior", definition: "Senior managers and directors" },
          ],
        },
      };
    case "recalibrateAudience":
      return { deepen: { topics: ["pricing sensitivity"] } };
    case "exportAudience":
      return { kind: "brief", format: "md" };
    case "createCheckoutSession":
      return { line_items: [{ id: m.prices.credits?.id }], currency: "usd", capabilities: {} };
    default:
      return op.bodySchemaRef ? {} : undefined;
  }
}

type Target = "private" | "soloAudience" | "main" | "public";

/** The path of `op` aimed at `target`, with every other parameter pointing at that target's world. */
function pathFor(op: Operation, target: Target, ownerKeyId: string): string {
  const audience = m.audiences[target]?.id as string;
  const values: Record<string, string> = {
    audienceId: audience,
    formationId: m.formations.mainReady?.id as string,
    mindId: m.minds.mainMember?.id as string,
    userId: m.users.admin?.id as string,
    keyId: ownerKeyId,
    id: sessionId,
  };
  return `${op.prefixes[0]}${op.path.replace(/\{([^}]+)\}/g, (_, n: string) => values[n] ?? "x")}`;
}

/** Whether `role` must be refused `op` on `target` (only the cases the description makes certain). */
function mustRefuse(role: Role, op: Operation, target: Target): boolean {
  const p = op.path;
  if (op.operationId === "deleteApiKey") return role !== "owner";
  if (p.startsWith("/checkout_sessions/")) return role !== "owner";
  if (!p.startsWith("/audiences/{audienceId}")) return false;
  const mutates = op.method !== "GET";
  switch (target) {
    case "private":
      return role !== "owner" && op.operationId !== "unfollowAudience";
    case "soloAudience":
      return role !== "solo" && op.operationId !== "unfollowAudience";
    case "main":
      if (["outsider", "sso", "solo", "publisher"].includes(role))
        return op.operationId !== "unfollowAudience";
      return role === "studyViewer" && mutates && AUDIENCE_MUTATIONS.has(op.operationId);
    case "public":
      return role !== "publisher" && AUDIENCE_MUTATIONS.has(op.operationId);
  }
}

/** A batch of refused calls must have left the scenario as it was; if not, find which call moved it. */
async function checkBatch(
  role: Role,
  target: string,
  refused: { op: Operation; path: string; body: unknown }[],
  failures: string[],
): Promise<void> {
  if (stateDigest(sim.state) === initialDigest) return;
  for (const x of refused) {
    sim.restore(initial);
    const before = stateDigest(sim.state);
    await call(keyOf(role), x.op.method, x.path, x.body);
    if (stateDigest(sim.state) !== before) {
      failures.push(`${role} ${x.op.operationId} on ${target} was refused but changed the state`);
    }
  }
  sim.restore(initial);
}

/** Every user of the default scenario, by handle: each plays a role in the world (owner, outsider, …). */
type Role = string;
let ROLES: Role[] = [];

beforeAll(async () => {
  sim = createSimulator({ clock: "manual", rateLimitPerMinute: 1_000_000_000, onError: (e) => bugs.push(e) });
  await sim.ready;
  m = sim.manifest();
  ROLES = Object.keys(m.users);
  for (const role of ROLES) own.set(role, new Set([keyOf(role)]));
  // A checkout session of the owner's, for the others to try.
  const created = await call(keyOf("owner"), "POST", "/api/acp/checkout_sessions", {
    line_items: [{ id: m.prices.credits?.id }],
    currency: "usd",
    capabilities: {},
  });
  expect(created.status, created.text).toBe(201);
  sessionId = JSON.parse(created.text).id;
  initial = sim.snapshot();
  initialDigest = stateDigest(sim.state);
});

afterAll(() => {
  expect(bugs).toEqual([]);
});

describe("isolation between users", () => {
  it("no role reads or changes what it may not, on any endpoint; no answer leaks a secret", async () => {
    const ownerKeys = JSON.parse((await call(keyOf("owner"), "GET", "/api/v1/api-keys")).text);
    const ownerKeyId = (ownerKeys.data ?? ownerKeys)[0]?.id as string;
    expect(ownerKeyId).toBeTruthy();
    const failures: string[] = [];
    let checked = 0;
    for (const role of ROLES) {
      for (const target of ["private", "soloAudience", "main", "public"] as const) {
        // Refusals first, from the scenario, with one digest for the batch (replayed one at a time only if it
        // moved); then the allowed calls.
        const cases = operations
          .filter((op) => op.authenticated)
          .map((op) => ({
            op,
            path: pathFor(op, target, ownerKeyId),
            body: bodyFor(op),
            refuse: mustRefuse(role, op, target),
          }))
          .sort((a, b) => Number(b.refuse) - Number(a.refuse));
        let batchChecked = false;
        for (const x of cases) {
          if (!x.refuse && !batchChecked) {
            batchChecked = true;
            await checkBatch(
              role,
              target,
              cases.filter((c) => c.refuse),
              failures,
            );
          }
          const r = await call(keyOf(role), x.op.method, x.path, x.body);
          checked++;
          // A key the caller just created is theirs to see.
          if (x.op.operationId === "createApiKey" && r.status === 201) {
            for (const k of r.text.matchAll(SECRET)) own.get(role)?.add(k[0]);
          }
          const problems = answerProblems({ method: x.op.method, target: x.path, ...r, body: r.text });
          if (problems.length > 0) failures.push(`${role} ${x.op.method} ${x.path}: ${problems.join("; ")}`);
          const leaked = leaks(role, r);
          if (leaked.length > 0)
            failures.push(`${role} ${x.op.operationId} on ${target} leaked ${leaked.join(", ")}`);
          if (x.refuse) {
            if (r.status < 400)
              failures.push(`${role} ${x.op.operationId} on ${target}: ${r.status}, not refused`);
            else if (x.op.method === "GET" && target !== "public" && r.status !== 404 && r.status !== 403) {
              failures.push(`${role} ${x.op.operationId} on ${target}: ${r.status}, expected 404`);
            }
          }
        }
        if (!batchChecked) await checkBatch(role, target, cases, failures);
        // The allowed calls may have changed anything: the next batch starts from the scenario again.
        sim.restore(initial);
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(ROLES.length * 4 * 25);
  }, 120_000);

  it("deleted keys never authenticate again, on any endpoint", async () => {
    sim.restore(initial);
    const failures: string[] = [];
    for (const role of ROLES) {
      const manifestKey = keyOf(role);
      const created = await call(manifestKey, "POST", "/api/v1/api-keys", { name: "short-lived" });
      if (role === "sso") {
        expect(created.status).toBe(403);
        continue;
      }
      if (created.status !== 201) {
        // Plans without API-key management: nothing to delete.
        expect(created.status, `${role}: ${created.text}`).toBe(403);
        continue;
      }
      const { id, key } = JSON.parse(created.text) as { id: string; key: string };
      expect((await call(key, "GET", "/api/v1/auth/me")).status).toBe(200);
      expect((await call(manifestKey, "DELETE", `/api/v1/api-keys/${id}`)).status).toBe(204);
      // The manifest key goes too, deleted with a third key, which then deletes itself.
      const third = JSON.parse((await call(manifestKey, "POST", "/api/v1/api-keys", { name: "t" })).text);
      const list = JSON.parse((await call(third.key, "GET", "/api/v1/api-keys")).text);
      const manifestKeyId = ((list.data ?? list) as { id: string }[]).find((k) => k.id !== third.id)?.id;
      expect((await call(third.key, "DELETE", `/api/v1/api-keys/${manifestKeyId}`)).status).toBe(204);
      expect((await call(third.key, "DELETE", `/api/v1/api-keys/${third.id}`)).status).toBe(204);
      for (const dead of [key, manifestKey, third.key as string]) {
        for (const op of operations) {
          if (!op.authenticated) continue;
          const path = pathFor(op, "main", "x");
          const r = await call(dead, op.method, path, bodyFor(op));
          if (r.status !== 401) failures.push(`${role}: deleted key on ${op.operationId} → ${r.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
    sim.restore(initial);
  }, 60_000);
});
