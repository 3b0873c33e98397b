/** What every fault case is, and the helpers several of them use to break a request or an answer. */
import type { CheckDef } from "../lib/context.ts";
import { type Fault, type HttpLayer, pathOf } from "./harness.ts";

export interface FaultCase {
  name: string;
  fault: Fault;
  /** The HTTP layer in front of it (the project's host unless said). */
  layer?: HttpLayer;
  checks: CheckDef[];
  /** The check (name prefix) that must report it. */
  reportedBy: string;
}

export const isV1 = (req: Request) => /^\/(api\/)?v1\//.test(pathOf(req));
export const is = (req: Request, method: string, re: RegExp) => req.method === method && re.test(pathOf(req));
export const AUD = "[0-9a-f-]{36}";

export async function bodyOf(req: Request): Promise<{ req: Request; json: unknown }> {
  const text = await req.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { req: new Request(req.url, { method: req.method, headers: req.headers, body: text }), json };
}

export function withBody(req: Request, json: unknown): Request {
  return new Request(req.url, { method: req.method, headers: req.headers, body: JSON.stringify(json) });
}
