/**
 * Checks below the HTTP client: what a server's HTTP layer answers before any handler runs, and whether
 * it serves every request the contract allows however its characters encode. Sent on raw sockets
 * (conformance/lib/http/wire.ts), since no client library sends a request without Host.
 */
import { MAX_REQUEST_HEAD_BYTES, MAX_REQUEST_TARGET_BYTES } from "../../src/contract/request-size.ts";
import { envelopeProblems, limits } from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import { sendRaw, type WireAnswer } from "../lib/http/wire.ts";
import { type CheckContext, type CheckDef, check } from "../lib/running/context.ts";

const MAX = (): number => limits().filtersChars;

/**
 * Reports unless `res` is `status` with the error envelope; `label` says what was sent, `path` what its
 * `url` may say (the HTTP layer may not know the path: an empty `url` is allowed too).
 */
function expectEnvelope(
  ctx: CheckContext,
  rule: RuleId,
  label: string,
  res: WireAnswer | null,
  status: number,
  path = "",
) {
  if (res === null) {
    ctx.report({ rule, message: `${label}: no HTTP answer came back`, exchange: null });
    return;
  }
  const shown = `${res.status} ${res.headers.get("content-type") ?? "(no Content-Type)"} ${res.text.slice(0, 160)}`;
  if (res.status !== status) {
    ctx.report({ rule, message: `${label}: answered ${shown}, not ${status}`, exchange: null });
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  const problems = envelopeProblems(body, status, ["", path]);
  if (!(res.headers.get("content-type") ?? "").startsWith("application/json"))
    problems.unshift("its Content-Type is not application/json");
  if (problems.length > 0)
    ctx.report({
      rule,
      message: `${label}: ${status} is not in the envelope (${problems.join("; ")}): ${shown}`,
      exchange: null,
    });
}

export const httpLayer = check("wire/http-layer", ["http/layer", "errors/envelope"], {
  needs: { roles: ["owner"] },
  async run(ctx) {
    const base = ctx.info.baseUrl;
    const host = new URL(base).host;
    const me = `${ctx.info.prefix}/auth/me`;
    const auth = `Authorization: Bearer ${ctx.as("owner").key}\r\n`;
    const cases: [string, string, number, string?][] = [
      [
        "an unknown Expect",
        `GET ${me} HTTP/1.1\r\nHost: ${host}\r\nExpect: nonsense\r\n${auth}Connection: close\r\n\r\n`,
        417,
        me,
      ],
      ["HTTP/1.1 without Host", `GET ${me} HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`, 400, me],
      [
        "two Host headers",
        `GET ${me} HTTP/1.1\r\nHost: ${host}\r\nHost: other.invalid\r\n${auth}Connection: close\r\n\r\n`,
        400,
        me,
      ],
      ["a request line that is not HTTP", "GARBAGE\r\n\r\n", 400],
      ["a header line without a colon", `GET ${me} HTTP/1.1\r\nHost: ${host}\r\nNoColonHere\r\n\r\n`, 400],
    ];
    for (const [label, head, status, path] of cases)
      expectEnvelope(ctx, "http/layer", label, await sendRaw(base, head), status, path);
  },
});

/** A `filters` value of exactly `chars` code points: one industry made of `ch`. */
function filters(chars: number, ch: string): string {
  const shell = '{"industry":[""]}';
  return JSON.stringify({ industry: [ch.repeat(chars - shell.length)] });
}

export const requestSize = check("wire/request-size", ["http/layer", "filters/limits"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const base = ctx.info.baseUrl;
    const host = new URL(base).host;
    const auth = `Authorization: Bearer ${ctx.as("owner").key}\r\n`;
    const at = `${ctx.info.prefix}/audiences/${ctx.target.audience("main")}/filter-attributes?filters=`;
    const get = (target: string, extra = "") =>
      sendRaw(base, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${auth}${extra}Connection: close\r\n\r\n`);
    ctx.coverage.limit("getFilterAttributes:filters:maxLength");
    // Four UTF-8 bytes a character, each percent-encoded: twelve bytes of URL for one character.
    for (const [label, ch] of [
      ["four-byte characters", "😀"],
      ["two-byte characters", "ß"],
    ] as const) {
      const res = await get(at + encodeURIComponent(filters(MAX(), ch)));
      if (res === null || res.status !== 200) {
        ctx.report({
          rule: "filters/limits",
          message: `filters of ${MAX()} ${label} (valid) answered ${res ? `${res.status} ${res.text.slice(0, 160)}` : "nothing"}, not 200`,
          exchange: null,
        });
      }
    }
    const over = await get(at + encodeURIComponent(filters(MAX() + 1, "😀")));
    expectEnvelope(
      ctx,
      "filters/limits",
      `filters of ${MAX() + 1} characters (one past the maximum)`,
      over,
      400,
      at.split("?")[0],
    );
    const long = await get(`${ctx.info.prefix}/auth/me?pad=${"a".repeat(MAX_REQUEST_TARGET_BYTES)}`);
    expectEnvelope(ctx, "http/layer", "a target longer than any the contract allows", long, 414);
    const big = await get(`${ctx.info.prefix}/auth/me`, `X-Pad: ${"h".repeat(MAX_REQUEST_HEAD_BYTES)}\r\n`);
    expectEnvelope(ctx, "http/layer", "a head larger than any the contract allows", big, 431);
  },
});

export const wireChecks: CheckDef[] = [httpLayer, requestSize];
