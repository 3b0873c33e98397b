/**
 * In-process HTTP for tests: a simulator on a manual clock, calls by manifest handle, and every response
 * checked against openapi.json (status documented, headers, Content-Type, body schema). A test that gets
 * an undocumented answer fails even if it did not think to look.
 */

import { operations } from "../contract/operations.ts";
import { checkResponse } from "../contract/responses.ts";
import { Router } from "../core/router.ts";
import { createSimulator, type Simulator, type SimulatorOptions } from "../simulator.ts";

const router = new Router(operations);

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when there is none or it is not JSON. */
  body: T;
}

export interface CallOptions {
  /** A user handle from the manifest, a raw key, or null for no Authorization header. */
  as?: string | null;
  body?: unknown;
  /** A raw body string, sent as is (typed `application/json` unless `headers` or `untyped` say otherwise). */
  raw?: string;
  /** Send the body without a Content-Type header. */
  untyped?: boolean;
  headers?: Record<string, string>;
  /** Skip the contract check (for requests to undocumented routes). */
  unchecked?: boolean;
}

export interface Harness {
  sim: Simulator;
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<CallResult<T>>;
  /** The manifest ID of a handle in one of its sections. */
  id(section: "users" | "audiences" | "minds" | "formations", handle: string): string;
  key(user: string): string;
}

export async function harness(options: SimulatorOptions = {}): Promise<Harness> {
  const sim = createSimulator({
    clock: "manual",
    onError: (e) => {
      throw e;
    },
    ...options,
  });
  await sim.ready;
  const h: Harness = {
    sim,
    id: (section, handle) => {
      const entry = (sim.manifest()[section] as Record<string, { id: string }>)[handle];
      if (!entry) throw new Error(`No ${section} handle ${handle}`);
      return entry.id;
    },
    key: (user) => {
      const u = sim.manifest().users[user];
      if (!u) throw new Error(`No user ${user}`);
      return u.apiKey;
    },
    call: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const as = opts.as === undefined ? "owner" : opts.as;
      if (as !== null) headers.authorization = `Bearer ${as.startsWith("service_") ? as : h.key(as)}`;
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) body = JSON.stringify(opts.body);
      const typed = Object.keys(headers).some((n) => n.toLowerCase() === "content-type");
      if (body !== undefined && !typed && !opts.untyped) headers["content-type"] = "application/json";
      const res = await sim.fetch(
        new Request(`http://sim.test${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }),
      );
      const text = method === "HEAD" ? "" : await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (!opts.unchecked) assertDocumented(method, path, res, text);
      return { status: res.status, headers: res.headers, text, body: parsed as any };
    },
  };
  return h;
}

function assertDocumented(method: string, path: string, res: Response, text: string): void {
  const m = router.match(method, new URL(`http://x${path}`).pathname);
  if (m.kind !== "found") return;
  const issues = checkResponse(m.op.operationId, res.status, res.headers, text);
  if (issues.length > 0) {
    throw new Error(
      `${method} ${path} → ${res.status} breaks the contract:\n${JSON.stringify(issues, null, 2)}\nbody: ${text.slice(0, 500)}`,
    );
  }
}

/**
 * A record as the state holds it now, for tests that keep hold of one across requests: Mind records are
 * replaced rather than changed (src/core/template.ts), so a reference taken earlier goes stale. Reading
 * a field reads the current record; setting one replaces the record with a copy that has it.
 */
export function live<T extends object>(table: Map<string, T>, id: string): T {
  const current = (): T => {
    const record = table.get(id);
    if (!record) throw new Error(`no record ${id}`);
    return record;
  };
  return new Proxy({} as T, {
    get: (_, field) => current()[field as keyof T],
    set: (_, field, value) => {
      table.set(id, { ...current(), [field]: value });
      return true;
    },
  });
}
