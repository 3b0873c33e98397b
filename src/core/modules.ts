/**
 * The resource modules an engine is handed, merged: routes by operationId (two modules serving one
 * operation is a programming error), background jobs by kind, the per-world inits, the pages served
 * outside the contract and the dashboard's views of their records, in module order.
 */
import type { JobHandler, ResourceModule, RouteSpec } from "./resource.ts";
import type { Services } from "./services.ts";

export interface Modules {
  routes: Map<string, RouteSpec>;
  jobs: Map<string, JobHandler>;
  inits: ((s: Services) => void)[];
  outside: NonNullable<ResourceModule["outside"]>[];
  views: NonNullable<ResourceModule["view"]>[];
}

export function collectModules(resources: readonly ResourceModule[]): Modules {
  const modules: Modules = { routes: new Map(), jobs: new Map(), inits: [], outside: [], views: [] };
  for (const mod of resources) {
    if (mod.init) modules.inits.push(mod.init);
    if (mod.view) modules.views.push(mod.view);
    if (mod.outside) modules.outside.push(mod.outside);
    for (const [id, spec] of Object.entries(mod.routes)) {
      if (modules.routes.has(id)) throw new Error(`Two resource modules serve ${id}`);
      modules.routes.set(id, spec);
    }
    for (const [kind, job] of Object.entries(mod.jobs ?? {})) modules.jobs.set(kind, job);
  }
  return modules;
}
