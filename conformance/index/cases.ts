/**
 * Which cases judge a sentence of the index: those of the sentence's rules (their own rule, or one they
 * also show) on the operations where the sentence stands. A sentence of a shared schema (a component) is
 * judged by its rules' cases on any operation.
 */
import type { Case } from "../cases/case.ts";
import { ALL_CASES } from "../cases/index.ts";
import { operations } from "../lib/description/contract.ts";
import type { Judged } from "./entry.ts";

/** The operation a pointer of openapi.json stands under (`/paths/~1api-keys/post/…`), or null. */
export function operationAt(pointer: string): string | null {
  const m = /^\/paths\/([^/]+)\/(get|put|post|delete|patch)(\/|$)/.exec(pointer);
  if (!m) return null;
  const path = (m[1] as string).replaceAll("~1", "/").replaceAll("~0", "~");
  const method = (m[2] as string).toUpperCase();
  return operations().find((o) => o.path === path && o.method === method)?.operationId ?? null;
}

/** The cases that judge `entry`'s sentence, which stands at `pointers`. */
export function casesOf(
  entry: Judged,
  pointers: readonly string[],
  cases: readonly Case[] = ALL_CASES,
): Case[] {
  const ops = pointers.map(operationAt);
  const anywhere = ops.includes(null);
  return cases.filter(
    (c) =>
      [c.rule, ...(c.also ?? [])].some((r) => entry.rules.includes(r)) && (anywhere || ops.includes(c.op)),
  );
}
