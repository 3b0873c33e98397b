/** Every check of the kit, in the order the suite's files run them. */
import { caseChecks } from "../cases/index.ts";
import type { CheckDef } from "../lib/running/context.ts";
import { domainChecks } from "./domain.ts";
import { genericChecks } from "./generic.ts";
import { limitChecks } from "./limits.ts";
import { rateLimitChecks } from "./ratelimit.ts";
import { statefulChecks } from "./stateful.ts";
import { wireChecks } from "./wire.ts";

export const allChecks: CheckDef[] = [
  ...genericChecks,
  ...caseChecks,
  ...limitChecks,
  ...domainChecks,
  ...statefulChecks,
  ...rateLimitChecks,
  ...wireChecks,
];
