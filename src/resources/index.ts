/**
 * Every resource module the simulator serves. The engine merges their routes by operationId and their
 * background jobs by kind; adding a module here is all it takes to serve more of the contract.
 */
import type { ResourceModule } from "../core/route.ts";
import { apiKeys } from "./api-keys.ts";
import { identity } from "./identity.ts";
import { meta } from "./meta.ts";

export const resourceModules: readonly ResourceModule[] = [identity, apiKeys, meta];
