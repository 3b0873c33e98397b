/** The deliberate faults that the checks of checks/domain/delete-cascade.ts must each report. */

import * as checks from "../../../checks/domain/delete-cascade.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { AUD, asCaller, bodyOf, casesOf, is } from "../../fault-kit.ts";
import { answer, pathOf } from "../../harness.ts";
import type { Json } from "../helpers.ts";

export const DELETE_CASCADE_FAULTS: FaultCase[] = [
  ...casesOf(checks.deleteCascade, {
    "deleting an Audience keeps the Minds it alone held": async (req, next, env) => {
      const m = new RegExp(`/audiences/(${AUD})$`).exec(pathOf(req));
      const gone = (env.memory.get("gone") ?? new Set()) as Set<string>;
      env.memory.set("gone", gone);
      if (req.method === "DELETE" && m) {
        const read = await next(asCaller(req, req.url));
        for (const x of read.ok ? ((await read.json()).data?.minds ?? []) : []) gone.add(x.id);
        return next(req);
      }
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const id = (json as { mindId?: string } | undefined)?.mindId;
      return id && gone.has(id) ? answer(200, { data: { added: 1 } }) : next(again);
    },
    "deleting an Audience deletes its Minds that another Audience holds": async (req, next, env) => {
      const added = (env.memory.get("added") ?? []) as [string, string][];
      env.memory.set("added", added);
      const m = new RegExp(`^(.*/audiences/)(${AUD})(/members)?$`).exec(pathOf(req));
      if (m && req.method === "POST" && m[3]) {
        const { req: again, json } = await bodyOf(req);
        const id = (json as { mindId?: string } | undefined)?.mindId;
        if (id) added.push([m[2] as string, id]);
        return next(again);
      }
      if (!m || m[3] || req.method !== "DELETE") return next(req);
      const read = await next(asCaller(req, req.url));
      const minds = new Set(read.ok ? ((await read.json()).data?.minds ?? []).map((x: Json) => x.id) : []);
      const res = await next(req);
      for (const [audience, mind] of added)
        if (audience !== m[2] && minds.has(mind))
          await next(asCaller(req, new URL(`${m[1]}${audience}/members/${mind}`, req.url), "DELETE"));
      return res;
    },
  }),
];
