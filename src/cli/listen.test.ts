import { describe, expect, it } from "vitest";
import { Answer } from "../core/request/exchange.ts";
import { startServer } from "../node/server.ts";
import { listenFirst } from "./listen.ts";

describe("listenFirst (serve takes its port before the world is made)", () => {
  it("holds a request that comes before the simulator is handed over, and answers it with that simulator", async () => {
    const errors: unknown[] = [];
    const front = await listenFirst(startServer, { host: "127.0.0.1", port: 0 }, (e) => errors.push(e));
    try {
      let answered = false;
      const pending = fetch(`${front.running.url}/api/v1/auth/me`).then(async (r) => {
        answered = true;
        return { status: r.status, body: await r.text() };
      });
      // The port is open but the world is not made: the request waits.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(answered).toBe(false);
      front.serve({ handle: async (request) => new Answer(200, {}, `made for ${request.method}`) });
      expect(await pending).toEqual({ status: 200, body: "made for GET" });
      expect(errors).toEqual([]);
    } finally {
      await front.running.close();
    }
  });
});
