import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LineStream } from "../core/request/exchange.ts";
import { type Handler, type RunningServer, startServer } from "./server.ts";

const MiB = 1024 * 1024;

describe("node:http host, lines made as they are read (a LineStream)", () => {
  let server: RunningServer;
  const errors: unknown[] = [];
  /** What the last source made, and whether it was told to stop. */
  let made = 0;
  let stopped = false;

  const source = (lines: number | null, line: Uint8Array, failAt = -1) => {
    made = 0;
    stopped = false;
    return {
      next() {
        if (stopped || made === lines) return null;
        if (made === failAt) throw new Error("line generation blew up");
        made++;
        return line;
      },
      stop() {
        stopped = true;
      },
    };
  };
  const handler: Handler = {
    async handle(req) {
      const path = new URL(req.url).pathname;
      const ndjson = { "content-type": "application/x-ndjson" };
      if (path === "/three")
        return new LineStream(200, ndjson, source(3, new TextEncoder().encode('{"n":1}\n')));
      if (path === "/endless")
        return new LineStream(200, ndjson, source(null, new Uint8Array(16 * 1024).fill(0x7b)));
      return new LineStream(200, ndjson, source(5, new TextEncoder().encode("{}\n"), 2));
    },
  };

  beforeAll(async () => {
    server = await startServer(handler, {
      port: 0,
      host: "127.0.0.1",
      onError: (error) => void errors.push(error),
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("writes every line, chunked, and stops asking once there are no more", async () => {
    const r = await request(`${server.url}/three`);
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    expect(await r.body.text()).toBe('{"n":1}\n{"n":1}\n{"n":1}\n');
    expect(made).toBe(3);
  });

  it("asks for no line at all for HEAD, and tells the source to stop", async () => {
    const r = await request(`${server.url}/three`, { method: "HEAD" });
    expect(r.statusCode).toBe(200);
    expect(await r.body.text()).toBe("");
    expect(made).toBe(0);
    expect(stopped).toBe(true);
  });

  it("makes lines only as fast as the client reads, and stops the source when the client goes away", async () => {
    const ac = new AbortController();
    const r = await request(`${server.url}/endless`, { signal: ac.signal });
    expect(r.statusCode).toBe(200);
    // Not reading: the host must wait for the socket to drain rather than make lines without bound.
    await sleep(300);
    expect(made * 16 * 1024).toBeLessThan(16 * MiB);
    ac.abort();
    await expect(r.body.text()).rejects.toThrow();
    for (let i = 0; i < 50 && !stopped; i++) await sleep(10);
    expect(stopped).toBe(true);
  });

  it("cuts the connection when making a line fails (the head is already written), and reports it", async () => {
    const before = errors.length;
    await expect(request(`${server.url}/fails`).then((r) => r.body.text())).rejects.toThrow();
    expect(errors.length).toBe(before + 1);
    expect(stopped).toBe(true);
  });
});
