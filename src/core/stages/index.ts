/**
 * The API request pipeline, in order. Each stage is one file beside this one with its own tests; a request
 * to the contract's API passes them until one answers (src/core/handle.ts sends it here).
 *
 *   route → fault → authenticate → rate-limit → prefer → authorize → body → latency → execute
 */
import type { Lifetime } from "../lifetime.ts";
import type { GenerateBody } from "../prefer.ts";
import type { RouteSpec } from "../route.ts";
import type { Router } from "../router.ts";
import { authenticate } from "./authenticate.ts";
import { authorize } from "./authorize.ts";
import { body } from "./body.ts";
import type { Stage } from "./call.ts";
import type { MakeChange } from "./change.ts";
import { execute } from "./execute.ts";
import { fault } from "./fault.ts";
import { latency } from "./latency.ts";
import { prefer } from "./prefer.ts";
import { rateLimit } from "./rate-limit.ts";
import { route } from "./route.ts";

export interface StageDeps {
  life: Lifetime;
  /** Built once from the contract's operations; the replay matches with the same one. */
  router: Router;
  routes: ReadonlyMap<string, RouteSpec>;
  change: MakeChange;
  recording: boolean;
  generateBody: GenerateBody | undefined;
  verifyKeptAnswers: boolean;
}

export function apiStages(d: StageDeps): readonly Stage[] {
  return [
    route(d.router),
    fault(d.life),
    authenticate(d.life),
    rateLimit(d.life),
    prefer(d.life, d.generateBody),
    authorize(d.life, d.routes, d.recording),
    body(d.life.contract.validators),
    latency(d.life),
    execute(d.life, d.change, d.verifyKeptAnswers),
  ];
}

export { ApiCall, runStages, type Stage, type Who } from "./call.ts";
export { changeMaker, type MakeChange } from "./change.ts";
