import net from "node:net";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Answer, type SimRequest } from "../core/request/exchange.ts";
import { createSimulator, type Simulator } from "../simulator.ts";
import { type FetchHandler, type Handler, type RunningServer, startServer } from "./server.ts";

const MiB = 1024 * 1024;
const BAD_REQUEST = {
  statusCode: 400,
  statusMessage: "Bad Request",
  message: "Bad Request",
  url: "",
  error: true,
};

/**
 * Sends raw bytes on a fresh connection; resolves with everything the server sent before closing. With
 * `halfClose`, the client ends its side once the bytes are out, as HTTP/1.1 allows.
 */
function raw(port: number, bytes: string, timeoutMs = 5_000, halfClose = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () =>
      halfClose ? socket.end(bytes) : socket.write(bytes),
    );
    let out = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      out += d;
    });
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(out);
    });
  });
}

function splitResponse(text: string): { head: string; body: string } {
  const i = text.indexOf("\r\n\r\n");
  return { head: text.slice(0, i), body: text.slice(i + 4) };
}

describe("node:http host with the simulator", () => {
  let sim: Simulator;
  let server: RunningServer;
  let base: string;
  let ownerKey: string;
  const bugs: unknown[] = [];
  const hostErrors: unknown[] = [];

  beforeAll(async () => {
    sim = createSimulator({ clock: "manual", onError: (e) => bugs.push(e) });
    await sim.ready;
    server = await startServer(sim, { port: 0, host: "127.0.0.1", onError: (e) => hostErrors.push(e) });
    base = server.url;
    ownerKey = sim.manifest().users.owner!.apiKey;
  });

  afterAll(async () => {
    await server?.close();
  });

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${ownerKey}` });

  it("reports the port it bound", () => {
    expect(server.port).toBeGreaterThan(0);
    expect(base).toBe(`http://127.0.0.1:${server.port}`);
  });

  it("GET /api/v1/auth/me with the owner key answers 200 JSON with a Content-Length", async () => {
    const r = await request(`${base}/api/v1/auth/me`, { headers: auth() });
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    const text = await r.body.text();
    expect(r.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(r.headers["ratelimit-limit"]).toBe("300");
    expect(JSON.parse(text)).toEqual({ id: sim.manifest().users.owner!.id });
  });

  it("POST with a JSON body reaches the handler", async () => {
    const r = await request(`${base}/api/v1/api-keys`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ name: "over http" }),
    });
    expect(r.statusCode).toBe(201);
    const body = (await r.body.json()) as { name: string; key: string };
    expect(body.name).toBe("over http");
    expect(body.key).toMatch(/^service_/);
    // The new key works at once, over the same server.
    const me = await request(`${base}/v1/auth/me`, { headers: { authorization: `Bearer ${body.key}` } });
    expect(me.statusCode).toBe(200);
    await me.body.dump();
  });

  it("answers bad JSON with the 400 envelope", async () => {
    const r = await request(`${base}/api/v1/api-keys`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: '{"name":',
    });
    expect(r.statusCode).toBe(400);
    expect(await r.body.json()).toMatchObject({ statusCode: 400, message: "Invalid JSON body", error: true });
  });

  it("HEAD carries no body on the wire", async () => {
    const r = await request(`${base}/api/v1/auth/me`, { method: "HEAD", headers: auth() });
    expect(r.statusCode).toBe(200);
    expect(await r.body.text()).toBe("");
    const wire = await raw(
      server.port,
      `HEAD /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownerKey}\r\nConnection: close\r\n\r\n`,
    );
    const { head, body } = splitResponse(wire);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(body).toBe("");
  });

  it("refuses a streamed body over the cap with 413 before the client has sent it all", async () => {
    const total = 2 * MiB;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let sentWhenAnswered = -1;
    let answered!: () => void;
    const answer = new Promise<void>((r) => {
      answered = r;
    });
    async function* body(): AsyncGenerator<Buffer> {
      while (sent < total) {
        if (sent >= 1.5 * MiB) {
          // Hold the rest back: a server that needs the whole body to answer would stall here.
          const timedOut = await Promise.race([answer.then(() => false), sleep(10_000).then(() => true)]);
          if (!timedOut) return;
        }
        yield chunk;
        sent += chunk.byteLength;
      }
    }
    const dispatcher = new Agent();
    try {
      const r = await request(`${base}/api/v1/api-keys`, {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json" },
        body: Readable.from(body()),
        dispatcher,
      });
      sentWhenAnswered = sent;
      answered();
      expect(r.statusCode).toBe(413);
      expect(await r.body.json()).toMatchObject({
        statusCode: 413,
        message: "Request body too large",
        data: { maxBytes: MiB },
        error: true,
      });
      expect(sentWhenAnswered).toBeGreaterThan(MiB);
      expect(sentWhenAnswered).toBeLessThan(total);
    } finally {
      answered();
      await dispatcher.close().catch(() => {});
    }
    const after = await request(`${base}/api/v1/auth/me`, { headers: auth() });
    expect(after.statusCode).toBe(200);
    await after.body.dump();
  });

  it("answers a declared Content-Length over the cap without asking for the body (Expect: 100-continue)", async () => {
    const wire = await raw(
      server.port,
      "POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\n" +
        `Authorization: Bearer ${ownerKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${2 * MiB}\r\nExpect: 100-continue\r\n\r\n`,
    );
    const { head, body } = splitResponse(wire);
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).not.toMatch(/100 Continue/);
    expect(head.toLowerCase()).toContain("connection: close");
    expect(JSON.parse(body)).toMatchObject({ statusCode: 413, error: true });
  });

  it("survives a client that aborts mid-body, and keeps serving", async () => {
    const ac = new AbortController();
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from('{"name":"');
      await sleep(200);
      ac.abort();
      await sleep(10_000);
      yield Buffer.from('x"}');
    }
    const pending = request(`${base}/api/v1/api-keys`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: Readable.from(body()),
      signal: ac.signal,
    });
    await expect(pending).rejects.toThrow();
    await sleep(50);
    const after = await request(`${base}/api/v1/auth/me`, { headers: auth() });
    expect(after.statusCode).toBe(200);
    await after.body.dump();
    // The abort reached the simulator as an AbortError, not as anything else.
    for (const b of bugs) expect((b as Error).name).toBe("AbortError");
  });

  it("answers malformed HTTP with the 400 envelope and keeps serving", async () => {
    const wire = await raw(server.port, "GARBAGE\r\n\r\n");
    const { head, body } = splitResponse(wire);
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(head.toLowerCase()).toContain("content-type: application/json");
    expect(JSON.parse(body)).toEqual(BAD_REQUEST);

    const bad = await raw(server.port, "GET /x HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expect(splitResponse(bad).head).toMatch(/^HTTP\/1\.1 400 /);

    const r = await request(`${base}/api/v1/auth/me`, { headers: auth() });
    expect(r.statusCode).toBe(200);
    await r.body.dump();
  });

  it("serves several requests on one kept-alive connection", async () => {
    const req = `GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownerKey}\r\n\r\n`;
    const wire = await raw(
      server.port,
      `${req}${req}${req.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")}`,
    );
    expect(wire.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(3);
  });

  it("logged no host errors and no simulator bugs", () => {
    expect(hostErrors).toEqual([]);
    for (const b of bugs) expect((b as Error).name).toBe("AbortError");
  });
});

describe("node:http host plumbing (stub handler)", () => {
  let server: RunningServer;
  let base: string;
  let gate: { open: () => void; opened: Promise<void> };
  let lastSignal: AbortSignal | null = null;
  let cancelled: Promise<void> = Promise.resolve();
  let produced = 0;

  const enc = new TextEncoder();
  const deferred = (): { open: () => void; opened: Promise<void> } => {
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    return { open, opened };
  };

  const handler: FetchHandler = {
    async fetch(req) {
      const url = new URL(req.url);
      lastSignal = req.signal;
      switch (url.pathname) {
        case "/echo":
          return Response.json({
            url: req.url,
            method: req.method,
            dup: req.headers.get("x-dup"),
            body: req.body ? await req.text() : null,
          });
        case "/cookies": {
          const h = new Headers({ "content-type": "text/plain" });
          h.append("set-cookie", "a=1; Path=/");
          h.append("set-cookie", "b=2; Path=/, c=3");
          h.append("x-multi", "one");
          h.append("x-multi", "two");
          return new Response("ok", { headers: h });
        }
        case "/gated": {
          // Line 2 is produced only once the client has seen line 1.
          let step = 0;
          return new Response(
            new ReadableStream<Uint8Array>({
              async pull(c) {
                step++;
                if (step === 1) c.enqueue(enc.encode('{"line":1}\n'));
                else if (step === 2) {
                  await gate.opened;
                  c.enqueue(enc.encode('{"line":2}\n'));
                } else c.close();
              },
            }),
            { headers: { "content-type": "application/x-ndjson" } },
          );
        }
        case "/endless": {
          const d = deferred();
          cancelled = d.opened;
          produced = 0;
          const chunk = new Uint8Array(64 * 1024).fill(0x7b);
          return new Response(
            new ReadableStream<Uint8Array>({
              async pull(c) {
                await new Promise((r) => setImmediate(r));
                produced += chunk.byteLength;
                c.enqueue(chunk);
              },
              cancel() {
                d.open();
              },
            }),
            { headers: { "content-type": "application/x-ndjson" } },
          );
        }
        case "/throws":
          throw new Error("handler blew up");
        default:
          return new Response(null, { status: 404 });
      }
    },
  };
  const hostErrors: unknown[] = [];

  beforeAll(async () => {
    server = await startServer(handler, { port: 0, host: "127.0.0.1", onError: (e) => hostErrors.push(e) });
    base = server.url;
  });
  // Its own connections, closed first: a keep-alive socket of the shared client would hold close() for its
  // whole grace, and other files in this worker use that client too.
  const agent = new Agent();
  const get = (url: string, options: Omit<Parameters<typeof request>[1], "dispatcher"> = {}) =>
    request(url, { ...options, dispatcher: agent });
  afterAll(async () => {
    await agent.close();
    await server?.close();
  });

  it("builds the URL from the Host header, ignores a Host that would change the path, joins duplicate headers", async () => {
    const r = await get(`${base}/echo?q=1`, {
      method: "PUT",
      headers: { "x-dup": ["a", "b"], "content-type": "text/plain" },
      body: "hello",
    });
    expect(await r.body.json()).toEqual({
      url: `${base}/echo?q=1`,
      method: "PUT",
      dup: "a, b",
      body: "hello",
    });

    const wire = await raw(
      server.port,
      "GET /echo HTTP/1.1\r\nHost: evil.example/zz\r\nConnection: close\r\n\r\n",
    );
    expect(JSON.parse(splitResponse(wire).body).url).toBe(`${base}/echo`);

    const named = await raw(
      server.port,
      "GET /echo HTTP/1.1\r\nHost: api.example:8080\r\nConnection: close\r\n\r\n",
    );
    expect(JSON.parse(splitResponse(named).body).url).toBe("http://api.example:8080/echo");
  });

  it("keeps every Set-Cookie apart", async () => {
    const r = await get(`${base}/cookies`);
    expect(r.headers["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/, c=3"]);
    expect(r.headers["x-multi"]).toBe("one, two");
    expect(await r.body.text()).toBe("ok");
  });

  it("streams a response line by line", async () => {
    gate = deferred();
    const r = await get(`${base}/gated`);
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    const lines: string[] = [];
    for await (const chunk of r.body) {
      lines.push(Buffer.from(chunk as Buffer).toString());
      // Only now may the stream produce line 2: a server that buffered the body would never get here.
      if (lines.length === 1) gate.open();
    }
    expect(lines).toEqual(['{"line":1}\n', '{"line":2}\n']);
  });

  it("honours backpressure and cancels the stream and aborts the signal when the client goes away", async () => {
    const ac = new AbortController();
    const r = await get(`${base}/endless`, { signal: ac.signal });
    expect(r.statusCode).toBe(200);
    const signal = lastSignal!;
    // Not reading: the server must wait for 'drain' rather than buffer without bound.
    await sleep(300);
    expect(produced).toBeLessThan(16 * MiB);
    ac.abort();
    await expect(r.body.text()).rejects.toThrow();
    await cancelled;
    expect(signal.aborted).toBe(true);
  });

  it("answers a handler that throws with a 500 envelope and reports it", async () => {
    const r = await get(`${base}/throws?x=1`);
    expect(r.statusCode).toBe(500);
    expect(await r.body.json()).toMatchObject({ statusCode: 500, error: true, url: "/throws" });
    expect(hostErrors).toHaveLength(1);
  });

  it("answers 400 to a request target that is not a path, and 405 to a method fetch forbids", async () => {
    const star = await raw(server.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(splitResponse(star).head).toMatch(/^HTTP\/1\.1 400 /);
    // No fetch handler can be given a TRACE, so none allows it; the envelope names the path all the same.
    {
      const res = await raw(server.port, "TRACE /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      expect(splitResponse(res).head).toMatch(/^HTTP\/1\.1 405 /);
      expect(JSON.parse(splitResponse(res).body)).toEqual({
        statusCode: 405,
        statusMessage: "Method Not Allowed",
        message: "Method Not Allowed",
        url: "/echo",
        error: true,
      });
    }
  });

  it("close() ends even while a response is still streaming, once its grace is over", async () => {
    const other = await startServer(handler, { port: 0, host: "127.0.0.1", closeGraceMs: 200 });
    const r = await get(`${other.url}/endless`);
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Date.now() - started).toBeLessThan(3_000);
    await r.body.text().catch(() => {});
  });
});

describe("node:http host, light path (a Handler, no web Request)", () => {
  let server: RunningServer;
  let seen: SimRequest | null = null;
  const handler: Handler = {
    async handle(req) {
      seen = req;
      const body = req.body ? await new Response(req.body).text() : null;
      return new Answer(
        201,
        { "content-type": "application/json; charset=utf-8", "x-extra": "yes" },
        JSON.stringify({
          url: req.url,
          method: req.method,
          dup: req.headers.get("X-Dup"),
          has: [req.headers.has("x-dup"), req.headers.has("x-none")],
          body,
        }),
      );
    },
  };

  beforeAll(async () => {
    server = await startServer(handler, { port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("hands over method, URL, headers (any case, repeats joined) and body, and writes the Answer whole", async () => {
    const r = await request(`${server.url}/echo?q=1`, {
      method: "POST",
      headers: { "x-dup": ["a", "b"], "content-type": "text/plain" },
      body: "hello",
    });
    expect(r.statusCode).toBe(201);
    expect(r.headers["x-extra"]).toBe("yes");
    const text = await r.body.text();
    expect(r.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({
      url: `${server.url}/echo?q=1`,
      method: "POST",
      dup: "a, b",
      has: [true, false],
      body: "hello",
    });
    expect(seen?.signal.aborted).toBe(false);
  });

  it("answers HEAD with the Answer's headers and no body", async () => {
    const wire = await raw(server.port, "HEAD /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const { head, body } = splitResponse(wire);
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    expect(head).toMatch(/content-length: \d+/i);
    expect(body).toBe("");
  });
});

describe("node:http host, answers of one turn", () => {
  it("are written together at the turn's end; one that cannot be written fails alone, reported", async () => {
    const errors: unknown[] = [];
    const written: string[] = [];
    // Both answers are made in the same turn: neither handler awaits anything real.
    const server = await startServer(
      {
        async handle(req) {
          written.push(req.url);
          const bad = req.url.endsWith("/bad");
          return new Answer(200, bad ? { "x-bad": "a\nb" } : {}, "ok");
        },
      },
      { port: 0, host: "127.0.0.1", onError: (e) => errors.push(e) },
    );
    try {
      const [good, bad] = await Promise.allSettled([
        request(`${server.url}/good`).then(async (r) => [r.statusCode, await r.body.text()]),
        request(`${server.url}/bad`).then((r) => r.statusCode),
      ]);
      expect(good).toEqual({ status: "fulfilled", value: [200, "ok"] });
      expect(bad.status).toBe("rejected");
      expect(written).toHaveLength(2);
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/x-bad/);
      // The server goes on serving.
      expect((await request(`${server.url}/again`)).statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("node:http host, a handler that answers at once", () => {
  it("writes an answer given as itself, and answers one that throws with a 500 envelope, reported", async () => {
    const errors: unknown[] = [];
    const server = await startServer(
      {
        handle(req) {
          if (req.url.endsWith("/throws")) throw new Error("broke at once");
          return new Answer(200, { "content-type": "text/plain" }, "now");
        },
      },
      { port: 0, host: "127.0.0.1", onError: (e) => errors.push(e) },
    );
    try {
      const now = await request(`${server.url}/now`);
      expect([now.statusCode, await now.body.text()]).toEqual([200, "now"]);
      const thrown = await request(`${server.url}/throws`);
      expect(thrown.statusCode).toBe(500);
      expect(await thrown.body.json()).toMatchObject({ statusCode: 500, error: true, url: "/throws" });
      expect(errors.map(String)).toEqual(["Error: broke at once"]);
    } finally {
      await server.close();
    }
  });
});

describe("node:http host, a client that half-closes", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // A handler that takes its time, as a proxy waiting on its upstream does.
    const slow: FetchHandler = {
      fetch: async () => {
        await sleep(50);
        return new Response("late but sure", { headers: { "content-type": "text/plain" } });
      },
    };
    server = await startServer(slow, { port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server.close());

  it("still gets the answer to a request it sent before ending its side of the connection", async () => {
    const wire = await raw(
      server.port,
      "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      5_000,
      true,
    );
    expect(wire).toMatch(/^HTTP\/1\.1 200 /);
    expect(splitResponse(wire).body).toContain("late but sure");
  });
});
