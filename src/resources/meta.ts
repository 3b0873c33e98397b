/** `GET /_openapi.json`: the contract itself, serialised once. */
import { contract } from "../contract/document.ts";
import type { ResourceModule } from "../core/route.ts";

let serialized: string | null = null;

export const meta: ResourceModule = {
  routes: {
    getOpenApiDocument: {
      handler: () => {
        serialized ??= JSON.stringify(contract);
        return new Response(serialized, {
          status: 200,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "cache-control": "public, max-age=60",
          },
        });
      },
    },
  },
};
