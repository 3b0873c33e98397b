/** `GET /_openapi.json`: the contract itself, serialised and encoded once. */
import { openapi as contract } from "../contract/document.ts";
import { Answer } from "../core/request/exchange.ts";
import type { ResourceModule } from "../core/resource.ts";

/** An Answer, not a web Response: in Node the first Response loads undici, 70 ms of start-up on its own. */
let document: Answer | null = null;

export const meta: ResourceModule = {
  routes: {
    getOpenApiDocument: {
      handler: () => {
        document ??= new Answer(
          200,
          { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=60" },
          new TextEncoder().encode(JSON.stringify(contract)),
        );
        return document;
      },
    },
  },
};
