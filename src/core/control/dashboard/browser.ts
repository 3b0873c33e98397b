/**
 * The dashboard's script, as the browser runs it: no framework, every record and body put in the page as
 * text, never as markup. It calls only the control plane's documented routes, relative to where the page
 * is, with the token when given, and reads their answers by the types the control plane answers with.
 *
 * Type-checked with the rest; `npm run generate:dashboard` makes it the JavaScript the page embeds
 * (./script.gen.ts), and a test holds that file to what this one makes now.
 */

import type { FaultRule } from "../../request/faults.ts";
import type { SimConfig } from "../../services.ts";
import type { Manifest } from "../../world/manifest.ts";
import type { JournalView } from "../journal.ts";
import type { SideView } from "../journal-detail.ts";
import type { ViewCell, WorldRow, WorldView } from "../world-section.ts";

/** A control-plane answer: its status, its body as JSON (null when it is not), and as text. */
interface Answered<T> {
  status: number;
  json: T | null;
  text: string;
}

/** The envelope of a refusal, with the problems a refused document or snapshot names. */
interface Refusal {
  statusMessage?: string;
  data?: { problems?: { pointer?: string; path?: string; message?: string }[] };
}

interface SandboxRow {
  id: string;
  scenario: string;
  createdAt: string;
  idleSeconds: number;
}

const params = new URLSearchParams(location.search);
const sandbox = params.get("sandbox");
const root = location.pathname.replace(/\/?$/, "/");
const base = sandbox ? `/__sim/sandboxes/${encodeURIComponent(sandbox)}/` : root;
let token = sessionStorage.getItem(`sim-token:${base}`) ?? "";
let keysById: Record<string, string> = {};
let handlesById: Record<string, string> = {};
let journalRows: JournalView[] = [];

/** The page's element of `id` (the page has every one this script asks for). */
function $<E extends HTMLElement = HTMLElement>(id: string): E {
  return document.getElementById(id) as E;
}
const input = (id: string) => $<HTMLInputElement>(id);

type Attrs = Record<string, string | ((ev: Event) => void)>;

function el(tag: string, attrs: Attrs = {}, children: (Node | string)[] = []): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v as string;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v as (ev: Event) => void);
    else e.setAttribute(k, v as string);
  }
  e.append(...children);
  return e;
}

const headerRow = (names: string[]) =>
  el(
    "tr",
    {},
    names.map((h) => el("th", { text: h })),
  );

function api<T = unknown>(method: string, path: string, body?: unknown, raw = false): Promise<Answered<T>> {
  const headers: Record<string, string> = {};
  if (token) headers["x-sim-control-token"] = token;
  if (body !== undefined) headers["content-type"] = "application/json";
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = raw ? (body as string) : JSON.stringify(body);
  return fetch(base + path, init).then((res) =>
    res.text().then((text) => {
      let json: T | null = null;
      try {
        json = JSON.parse(text) as T;
      } catch {
        // Not JSON: the text stays.
      }
      if (res.status === 401 || (sandbox && res.status === 404 && path === "manifest")) showLogin();
      return { status: res.status, json, text };
    }),
  );
}

function showLogin(message?: string): void {
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message ?? (token ? "That token does not open this control plane." : "");
}

function start(): void {
  api<Manifest>("GET", "manifest").then((r) => {
    if (r.status !== 200 || !r.json) return;
    $("login").hidden = true;
    $("app").hidden = false;
    $("where").textContent =
      `${sandbox ? `sandbox ${sandbox}: ` : ""}scenario ${r.json.scenario} (seed ${r.json.seed})`;
    showManifest(r.json);
    loadScenarios();
    loadConfig();
    loadSandboxes();
    refresh();
  });
}

$("login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  token = input("token").value.trim();
  sessionStorage.setItem(`sim-token:${base}`, token);
  start();
});

/** A long value (a path, a key, an ID list) is shortened in its cell, whole on hover and in the copy. */
const LONG = 48;
function cell(v: ViewCell | undefined): HTMLElement {
  if (v === null || v === undefined) return el("td", { class: "muted", text: "\u2014" });
  const text = String(v);
  // An ID or a path may break anywhere to fit; words keep whole.
  if (text.length <= LONG)
    return el("td", /\s/.test(text) || text.length < 17 ? { text } : { text, class: "id" });
  return el("td", { title: text, class: "long" }, [
    el("span", { text: `${text.slice(0, LONG - 1)}\u2026` }),
    copyButton(text),
  ]);
}

function copyButton(text: string, label = "copy"): HTMLElement {
  return el("button", {
    type: "button",
    text: label,
    onclick: () => {
      navigator.clipboard?.writeText(text).catch(() => {});
    },
  });
}

function showManifest(m: Pick<Manifest, "users">): void {
  keysById = {};
  handlesById = {};
  const t = $("users");
  t.replaceChildren(headerRow(["handle", "plan", "user ID", "API key", ""]));
  for (const [handle, u] of Object.entries(m.users)) {
    keysById[u.id] = u.apiKey;
    handlesById[u.id] = handle;
    t.append(
      el("tr", { "data-handle": handle }, [
        cell(handle),
        cell(u.plan),
        el("td", { class: "mono", text: u.id }),
        el("td", { class: "mono key", text: u.apiKey }),
        el("td", {}, [copyButton(u.apiKey, "copy key")]),
      ]),
    );
  }
}

function curlOf(read: NonNullable<WorldRow["read"]>): string {
  const key = keysById[read.userId] ?? `<key of ${read.userId}>`;
  return `curl -H 'Authorization: Bearer ${key}' '${location.origin}${read.path}'`;
}

function showWorld(w: WorldView): void {
  $("now").textContent = w.now;
  $("mode").textContent = `(${w.clock.mode} clock)`;
  $("jobs-summary").textContent = w.clock.jobs.length ? "queued jobs, next first:" : "no job is queued";
  $("jobs").replaceChildren(...w.clock.jobs.map((j) => el("li", { text: `${j.at}  ${j.kind}` })));
  const box = $("world");
  box.replaceChildren();
  for (const s of w.sections) {
    if (s.name === "Users") continue;
    const cols = s.rows[0] ? Object.keys(s.rows[0].cells) : [];
    const t = el("table", { "data-section": s.name }, [headerRow(["id", ...cols, ""])]);
    for (const r of s.rows) {
      t.append(
        el("tr", { "data-id": r.id }, [
          el("td", { class: "mono", text: r.id.slice(0, 8) }),
          ...cols.map((c) => cell(r.cells[c])),
          el("td", {}, r.read ? [copyButton(curlOf(r.read), "curl")] : []),
        ]),
      );
    }
    box.append(el("h3", { text: `${s.name} (${s.rows.length})` }), t);
  }
}

function showFaults(list: FaultRule[]): void {
  const t = $("faults");
  t.replaceChildren(headerRow(["id", "method", "path", "status", "delay", "times left", ""]));
  for (const f of list) {
    const remove = () => api("DELETE", `faults/${f.id}`).then(refresh);
    t.append(
      el("tr", { "data-fault": String(f.id) }, [
        cell(f.id),
        cell(f.method),
        cell(f.path),
        cell(f.status),
        cell(f.delayMs),
        cell(f.times),
        el("td", {}, [el("button", { type: "button", text: "remove", onclick: remove })]),
      ]),
    );
  }
}

function journalQuery(): URLSearchParams {
  const q = new URLSearchParams({ limit: "100" });
  for (const [name, id] of [
    ["method", "j-method"],
    ["path", "j-path"],
    ["status", "j-status"],
  ] as const) {
    const v = input(id).value.trim();
    if (v) q.set(name, v);
  }
  return q;
}

function showJournal(entries: JournalView[]): void {
  const t = $("journal");
  journalRows = entries;
  t.replaceChildren(headerRow(["#", "at", "method", "path", "status", "ms", "user"]));
  entries.forEach((e, i) => {
    const user = e.userId ? (handlesById[e.userId] ?? e.userId.slice(0, 8)) : null;
    t.append(
      el(
        "tr",
        { "data-entry": String(e.id), class: e.status >= 400 ? "bad" : "", onclick: () => showDetail(i) },
        [
          cell(e.id),
          cell(e.at.slice(11, 23)),
          cell(e.method),
          cell(e.path + e.query),
          cell(e.status),
          cell(e.ms),
          cell(user),
        ],
      ),
    );
  });
}

function side(title: string, s: SideView | undefined): HTMLElement[] {
  if (!s)
    return [
      el("h3", { text: title }),
      el("p", { class: "muted", text: "not kept (only the newest requests keep headers and bodies)" }),
    ];
  const head = Object.entries(s.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
  const body =
    s.body === null ? (s.note ?? "(no body)") : s.body + (s.cut ? `\n\u2026 cut: ${s.size} in all` : "");
  return [el("h3", { text: title }), el("pre", { text: head }), el("pre", { class: "body", text: body })];
}

function showDetail(i: number): void {
  const e = journalRows[i];
  if (!e) return;
  for (const r of $("journal").querySelectorAll("tr.sel")) r.classList.remove("sel");
  $("journal").querySelector(`[data-entry="${e.id}"]`)?.classList.add("sel");
  $("detail").replaceChildren(
    el("h3", { text: `${e.method} ${e.path}${e.query} \u2192 ${e.status}` }),
    ...side("request", e.request),
    ...side("response", e.response),
  );
}

function refresh(): Promise<unknown> {
  return Promise.all([
    api<WorldView>("GET", "world").then((r) => {
      if (r.status === 200 && r.json) showWorld(r.json);
    }),
    api<FaultRule[]>("GET", "faults").then((r) => {
      if (r.status === 200 && r.json) showFaults(r.json);
    }),
    api<JournalView[]>("GET", `requests?${journalQuery()}`).then((r) => {
      if (r.status === 200 && r.json) showJournal(r.json);
    }),
  ]);
}

function loadScenarios(): void {
  api<{ name: string; description?: string }[]>("GET", "scenarios").then((r) => {
    if (r.status !== 200 || !r.json) return;
    $("scenario").replaceChildren(
      ...r.json.map((s) => el("option", { value: s.name, text: s.name, title: s.description ?? "" })),
    );
  });
}

function loadConfig(): void {
  api<SimConfig>("GET", "config").then((r) => {
    if (r.status !== 200 || !r.json) return;
    const { rateLimitPerMinute, latencyMs } = r.json;
    input("rate").value = String(rateLimitPerMinute);
    input("latency").value = String(Array.isArray(latencyMs) ? latencyMs[0] : latencyMs);
  });
}

function loadSandboxes(): void {
  if (sandbox) return;
  api<SandboxRow[]>("GET", "sandboxes").then((r) => {
    if (r.status !== 200 || !Array.isArray(r.json)) return;
    $("sandboxes-panel").hidden = false;
    const t = $("sandboxes");
    t.replaceChildren(headerRow(["id", "scenario", "created", "idle s", ""]));
    for (const s of r.json) {
      const remove = () => api("DELETE", `sandboxes/${s.id}`).then(loadSandboxes);
      t.append(
        el("tr", {}, [
          el("td", {}, [el("a", { href: `${root}?sandbox=${encodeURIComponent(s.id)}`, text: s.id })]),
          cell(s.scenario),
          cell(s.createdAt),
          cell(s.idleSeconds),
          el("td", {}, [el("button", { type: "button", text: "delete", onclick: remove })]),
        ]),
      );
    }
  });
}

function worldChanged(r: Answered<Refusal & Partial<Manifest>>, what = ""): Promise<unknown> | undefined {
  $("problems").replaceChildren();
  const message = $("world-message");
  if (r.status === 200) {
    message.textContent = what;
    message.className = "ok";
    showManifest(r.json?.users ? { users: r.json.users } : { users: {} });
    return refresh();
  }
  message.className = "bad";
  message.textContent = r.json?.statusMessage ?? `answered ${r.status}`;
  for (const p of r.json?.data?.problems ?? []) {
    const where = p.pointer !== undefined ? p.pointer || "/" : (p.path ?? "");
    $("problems").append(el("li", {}, [el("code", { text: where }), ` ${p.message ?? JSON.stringify(p)}`]));
  }
  return undefined;
}

/** A refusal made here (a file not chosen, not JSON), shown as the control plane's would be. */
const refusedHere = (statusMessage: string): Answered<Refusal> => ({
  status: 400,
  json: { statusMessage },
  text: "",
});

function readFile(id: string): Promise<string> {
  const f = input(id).files?.[0];
  return f ? f.text() : Promise.reject(new Error("choose a file first"));
}

document.addEventListener("click", (ev) => {
  const ms = (ev.target as Element | null)?.getAttribute?.("data-advance");
  if (ms) api("POST", "clock/advance", { ms: Number(ms) }).then(refresh);
});
$("advance").addEventListener("click", () => {
  api("POST", "clock/advance", { ms: Number(input("advance-ms").value) }).then(refresh);
});
$("next-job").addEventListener("click", () => {
  api("POST", "clock/advance", { toNextJob: true }).then(refresh);
});
$("fault-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const rule: Record<string, string | number> = {};
  if (input("fault-method").value) rule.method = input("fault-method").value;
  if (input("fault-path").value.trim()) rule.path = input("fault-path").value.trim();
  for (const [name, id] of [
    ["status", "fault-status"],
    ["delayMs", "fault-delay"],
    ["times", "fault-times"],
  ] as const) {
    if (input(id).value !== "") rule[name] = Number(input(id).value);
  }
  api<Refusal>("POST", "faults", rule).then((r) => {
    $("fault-error").textContent = r.status === 201 ? "" : (r.json?.statusMessage ?? `answered ${r.status}`);
    refresh();
  });
});
$("faults-clear").addEventListener("click", () => {
  api("DELETE", "faults").then(refresh);
});
$("config-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const patch = {
    rateLimitPerMinute: Number(input("rate").value),
    latencyMs: Number(input("latency").value),
  };
  api("PATCH", "config", patch).then(loadConfig);
});
$("reset").addEventListener("click", () => {
  const scenario = $<HTMLSelectElement>("scenario").value;
  api<Refusal & Manifest>("POST", "reset", { scenario, seed: Number(input("seed").value) }).then((r) =>
    worldChanged(r, `reset to ${scenario}`),
  );
});
$("upload").addEventListener("click", () => {
  readFile("document")
    .then((text) => {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        return worldChanged(refusedHere(`The file is not JSON: ${(e as Error).message}`));
      }
      return api<Refusal & Manifest>("POST", "reset", { scenario: doc }).then((r) =>
        worldChanged(r, "loaded the document"),
      );
    })
    .catch((e: Error) => worldChanged(refusedHere(e.message)));
});
$("download").addEventListener("click", () => {
  api("GET", "snapshot").then((r) => {
    const href = URL.createObjectURL(new Blob([r.text], { type: "application/json" }));
    const a = el("a", { href, download: "snapshot.json" });
    document.body.append(a);
    a.click();
    a.remove();
  });
});
$("load-snapshot").addEventListener("click", () => {
  readFile("snapshot-file")
    .then((text) =>
      api<Refusal & Manifest>("PUT", "snapshot", text, true).then((r) =>
        worldChanged(r, "loaded the snapshot"),
      ),
    )
    .catch((e: Error) => worldChanged(refusedHere(e.message)));
});
$("sandbox-new").addEventListener("click", () => {
  api("POST", "sandboxes", {}).then((r) => {
    $("sandbox-made").textContent = r.status === 201 ? JSON.stringify(r.json, null, 2) : r.text;
    loadSandboxes();
  });
});
$("j-clear").addEventListener("click", () => {
  api("DELETE", "requests").then(refresh);
});
for (const id of ["j-method", "j-path", "j-status"]) $(id).addEventListener("change", refresh);
setInterval(() => {
  if (!$("app").hidden) refresh();
}, 1000);
start();
