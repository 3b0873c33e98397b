/**
 * The docs page of the Node host: `GET /` and `GET /_docs` render the contract with Scalar's API
 * reference (@scalar/api-reference's standalone browser bundle, copied into dist/ by the build and served
 * at `/_docs/scalar.js`; no CDN, no internet), list the scenario's users and API keys from the manifest, and
 * point the reference's "Test Request" client at this simulator with the owner's key prefilled.
 *
 * Only the Node host serves this page; the core and the MSW handlers know nothing of it. Every other path
 * goes to the wrapped handler. Scalar's telemetry, AI agent and default web fonts are switched off, so
 * the page makes no request beyond this origin.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { openapi } from "../contract/document.ts";
import { escapeHtml } from "../core/control/html.ts";
import { ApiError } from "../core/errors.ts";
import { renderError } from "../core/request/render.ts";
import type { Manifest } from "../core/world/manifest.ts";
import { withStatedTypes } from "./docs-document.ts";
import type { Handler } from "./server.ts";

export const DOCS_PATHS: readonly string[] = ["/", "/_docs", "/_docs/"];
export const SCALAR_BUNDLE_PATH = "/_docs/scalar.js";
/** The description as the reference reads it: every schema's type stated (./docs-document.ts says why). */
export const SCALAR_DOCUMENT_PATH = "/_docs/openapi.json";

export interface DocsOptions {
  /** The current manifest (after a reset it changes, so it is read per request). */
  manifest: () => Manifest;
  /** The user whose key the "try it" client starts with (default `owner`, else the first user). */
  tryItAs?: string;
  /**
   * Show the users' API keys (default true). Off when the control plane is protected by a token or turned
   * off: then the keys are behind the token (`GET /__sim/manifest`), and a public page must not give them away.
   */
  showKeys?: boolean;
}

let bundle: Promise<Uint8Array> | null = null;
let scalarDocument: Uint8Array<ArrayBuffer> | null = null;

/**
 * The path of Scalar's standalone browser bundle: the copy the build puts beside the bundled server
 * (dist/scalar.js, so an installed package needs none of @scalar/api-reference's dependency tree), else the
 * one in node_modules (the sources run in a clone).
 */
export function scalarBundleFile(): string {
  const beside = fileURLToPath(new URL("./scalar.js", import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");
}

function loadBundle(): Promise<Uint8Array> {
  // node:fs/promises on the first page only: it brings readline and the file watchers, before any answer.
  bundle ??= import("node:fs/promises")
    .then(({ readFile }) => readFile(scalarBundleFile()))
    .catch((error: unknown) => {
      bundle = null;
      throw error;
    });
  return bundle;
}

export function withDocs(inner: Handler, options: DocsOptions): Handler {
  const serve = docsServer(inner, options);
  return {
    // Not async, and no URL parsed, on the way every API request takes.
    handle: (request) => {
      const method = request.method;
      if (method !== "GET" && method !== "HEAD") return inner.handle(request);
      const path = pathOf(request.url);
      if (path !== SCALAR_BUNDLE_PATH && path !== SCALAR_DOCUMENT_PATH && !DOCS_PATHS.includes(path))
        return inner.handle(request);
      return serve(request);
    },
  };
}

/** The path of an absolute URL, without parsing it; a path the docs do not serve if it is odd. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

function docsServer(inner: Handler, options: DocsOptions): Handler["handle"] {
  return async (request) => {
    const method = request.method;
    const url = URL.parse(request.url);
    if (url === null) return inner.handle(request);
    if (DOCS_PATHS.includes(url.pathname)) {
      const html = docsPage(
        url.origin,
        options.manifest(),
        options.tryItAs ?? "owner",
        options.showKeys ?? true,
      );
      return new Response(method === "HEAD" ? null : html, {
        status: 200,
        headers: {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
        },
      });
    }
    if (url.pathname === SCALAR_DOCUMENT_PATH) {
      scalarDocument ??= new TextEncoder().encode(JSON.stringify(withStatedTypes(openapi)));
      return new Response(method === "HEAD" ? null : scalarDocument, {
        status: 200,
        headers: {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "public, max-age=60",
          "x-content-type-options": "nosniff",
        },
      });
    }
    if (url.pathname === SCALAR_BUNDLE_PATH) {
      let js: Uint8Array;
      try {
        js = await loadBundle();
      } catch {
        const message = "@scalar/api-reference is not installed: run npm ci";
        return renderError(new ApiError(503, message), url.pathname, {});
      }
      return new Response(method === "HEAD" ? null : (js as Uint8Array<ArrayBuffer>), {
        status: 200,
        headers: {
          "content-type": "text/javascript; charset=utf-8",
          "content-length": String(js.byteLength),
          "cache-control": "public, max-age=3600",
          "x-content-type-options": "nosniff",
        },
      });
    }
    return inner.handle(request);
  };
}

const esc = escapeHtml;

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");

export function docsPage(origin: string, manifest: Manifest, tryItAs: string, showKeys = true): string {
  const users = Object.entries(manifest.users);
  const [asHandle, asUser] = users.find(([h]) => h === tryItAs) ?? users[0] ?? [];
  const config = {
    url: SCALAR_DOCUMENT_PATH,
    servers: [
      { url: `${origin}/api/v1`, description: "This simulator: /api/v1" },
      { url: `${origin}/v1`, description: "This simulator: /v1" },
      { url: `${origin}/api/acp`, description: "This simulator: ACP (checkout sessions)" },
    ],
    authentication: {
      preferredSecurityScheme: "apiKey",
      securitySchemes: { apiKey: { token: showKeys ? (asUser?.apiKey ?? "") : "" } },
    },
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    hideClientButton: false,
    showDeveloperTools: "never",
    documentDownloadType: "json",
    metaData: { title: "Audience Research Service API — simulator" },
  };
  const rows = users
    .map(
      ([handle, u]) =>
        `<tr><td>${esc(handle)}</td><td>${esc(u.plan)}</td><td>${u.subscriptionActive ? "active" : "none"}</td>` +
        `<td>${showKeys ? `<code>${esc(u.apiKey)}</code>` : "(hidden)"}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audience Research Service API — simulator</title>
<link rel="icon" href="data:,">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; }
  #sim-keys { padding: 12px 24px; border-bottom: 1px solid #ddd; background: #f7f7f9; font-size: 14px; }
  #sim-keys summary { cursor: pointer; font-weight: 600; }
  #sim-keys table { border-collapse: collapse; margin-top: 8px; }
  #sim-keys td, #sim-keys th { padding: 2px 12px 2px 0; text-align: left; }
  #sim-keys code { font-size: 12px; }
</style>
</head>
<body>
<section id="sim-keys">
<details open>
<summary>Simulator: scenario ${esc(manifest.scenario)} (seed ${manifest.seed}), ${users.length} users.
${
  showKeys
    ? `"Test Request" runs against ${esc(origin)} as <b>${esc(asHandle ?? "")}</b>; paste another key to act as someone else.`
    : `API keys are not shown here: the control plane is protected or off. Read them from <code>GET /__sim/manifest</code> with the control token, and paste one into "Test Request".`
}</summary>
<table>
<thead><tr><th>handle</th><th>plan</th><th>subscription</th><th>API key</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<p>Control plane: <a href="/__sim/manifest">/__sim/manifest</a> · contract: <a href="/_openapi.json">/_openapi.json</a></p>
</details>
</section>
<div id="app"></div>
<script src="${SCALAR_BUNDLE_PATH}"></script>
<script>
  Scalar.createApiReference("#app", ${scriptJson(config)});
</script>
</body>
</html>
`;
}
