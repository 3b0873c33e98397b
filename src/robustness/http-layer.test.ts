/**
 * What Node's HTTP layer would answer on its own, before any handler runs (an unknown `Expect`, no `Host`,
 * a broken request line, an oversized head), is answered in the API's envelope too; and the request size
 * limits come from the contract, so every request it allows is served however its characters encode.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerProblems, type RunningSim, raw, serve } from "../../testing/robustness.ts";
import { MAX_REQUEST_HEAD_BYTES, MAX_REQUEST_TARGET_BYTES } from "../contract/request-size.ts";
import { stateDigest } from "../core/world/digest.ts";

let s: RunningSim;
let key: string;
let main: string;

beforeAll(async () => {
  s = await serve();
  key = s.sim.manifest().users.owner?.apiKey as string;
  main = s.sim.manifest().audiences.main?.id as string;
});

afterAll(async () => {
  await s?.close();
});

async function send(head: string, body = ""): Promise<{ status: number; body: string; headers: Headers }> {
  const result = await raw(s.port, [Buffer.from(head + body, "latin1")], { timeoutMs: 3_000 });
  const res = result.responses[0];
  if (!res) throw new Error(`no answer to ${JSON.stringify(head.slice(0, 120))}`);
  return { status: res.status, body: res.body.toString("utf8"), headers: res.headers };
}

describe("answers of the HTTP layer", () => {
  const auth = (): string => `Authorization: Bearer ${key}\r\n`;
  const cases: [string, () => string, number, string][] = [
    [
      "an unknown Expect",
      () => `GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nExpect: nonsense\r\n${auth()}\r\n`,
      417,
      "/api/v1/auth/me",
    ],
    ["HTTP/1.1 without Host", () => `GET /api/v1/auth/me HTTP/1.1\r\n${auth()}\r\n`, 400, "/api/v1/auth/me"],
    [
      "two Host headers",
      () => `GET /api/v1/auth/me HTTP/1.1\r\nHost: a\r\nHost: b\r\n${auth()}\r\n`,
      400,
      "/api/v1/auth/me",
    ],
    ["a request line that is not HTTP", () => "GARBAGE\r\n\r\n", 400, ""],
    ["an unknown HTTP version", () => "GET / HTTP/9.9\r\nHost: x\r\n\r\n", 400, ""],
    ["a header without a colon", () => "GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400, ""],
    [
      "Content-Length beside chunked",
      () =>
        "POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      400,
      "",
    ],
    [
      "a broken chunk",
      () => "POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
      400,
      "",
    ],
    [
      "a target longer than any the contract allows",
      () => `GET /api/v1/auth/me?x=${"a".repeat(MAX_REQUEST_TARGET_BYTES)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      414,
      "",
    ],
    [
      "a head larger than any the contract allows",
      () => `GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nX-Big: ${"h".repeat(MAX_REQUEST_HEAD_BYTES)}\r\n\r\n`,
      431,
      "",
    ],
  ];
  for (const [what, head, status, url] of cases) {
    it(`${what}: ${status} in the envelope, nothing changed`, async () => {
      const before = stateDigest(s.sim.state);
      const res = await send(head());
      expect(res.status).toBe(status);
      expect(
        answerProblems({
          method: "GET",
          target: "/",
          status: res.status,
          headers: res.headers,
          body: res.body,
        }),
      ).toEqual([]);
      expect(JSON.parse(res.body)).toMatchObject({ statusCode: status, url, error: true });
      expect(stateDigest(s.sim.state)).toBe(before);
    });
  }
});

describe("requests the contract allows", () => {
  // `filters` at its maximum length in the worst encoding: four UTF-8 bytes a character, each as %XX.
  const filters = (chars: number, ch: string) => {
    const shell = '{"industry":[""]}';
    return JSON.stringify({ industry: [ch.repeat(chars - shell.length)] });
  };

  it("are served at their longest, however their characters encode", async () => {
    for (const ch of ["ß", "😀", "a"]) {
      const value = filters(8192, ch);
      expect([...value].length).toBe(8192);
      const target = `/api/v1/audiences/${main}/filter-attributes?filters=${encodeURIComponent(value)}`;
      const res = await send(
        `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, `${ch}: ${res.body.slice(0, 200)}`).toBe(200);
    }
  });

  it("one character longer is the contract's 400, not a refusal of the HTTP layer", async () => {
    const value = filters(8193, "😀");
    const target = `/api/v1/audiences/${main}/filter-attributes?filters=${encodeURIComponent(value)}`;
    const res = await send(
      `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(400);
  });

  it("left no bug behind", () => {
    expect(s.bugs).toEqual([]);
    expect(s.hostErrors).toEqual([]);
  });
});
