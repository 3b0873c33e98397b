/** `GET /auth/me`: verifies a key and names its owner. */
import type { ResourceModule } from "../../core/resource.ts";

export const identity: ResourceModule = {
  routes: {
    getMe: { pure: true, handler: (ctx) => ({ status: 200, body: { id: ctx.caller.id } }) },
  },
};
