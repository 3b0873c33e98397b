/**
 * Stateful properties over sequences of calls: the world model (conformance/world/), which holds keys,
 * sharing, members, Formations and checkout sessions in one model. This is the list the suite runs.
 */
import type { CheckDef } from "../lib/running/context.ts";
import { world } from "./world.ts";

export const statefulChecks: CheckDef[] = [world];
