/**
 * The MSW example page: the whole API mocked in this tab by a service worker, no server. It lists the
 * owner's API keys and an Audience's members, creates a Formation and shows it reaching `ready` as the
 * (manual) clock is moved through the control plane. Built and driven by src/msw/browser.test.ts; build it
 * by hand with `npx tsx testing/msw-example.ts [dir]`.
 */
import { setupWorker } from "msw/browser";
import { createHandlers } from "../index.ts";

const handlers = createHandlers({ scenario: "default", clock: "manual" });
const $ = (id: string) => document.getElementById(id) as HTMLElement;
const item = (list: string, text: string) => $(list).appendChild(document.createElement("li")).append(text);

interface Audience {
  name: string;
  mindCount: number;
  minds: { id: string; name?: string }[];
}
interface Formation {
  id: string;
  status: string;
}

async function api<T>(path: string, key: string, init: RequestInit = {}): Promise<T> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const res = await fetch(path, { ...init, headers });
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function main(): Promise<void> {
  await setupWorker(...handlers).start({ onUnhandledRequest: "bypass", quiet: true });
  await handlers.simulator.ready;
  const { users, audiences } = handlers.simulator.manifest();
  const key = users.owner!.apiKey;
  const main = audiences.main!.id;

  const keys = await api<{ id: string; name: string | null }[]>("/api/v1/api-keys", key);
  for (const k of keys) item("keys", `${k.name ?? "(unnamed)"} · ${k.id}`);

  const audience = (await api<{ data: Audience }>(`/api/v1/audiences/${main}?members=preview`, key)).data;
  $("audience").textContent = `${audience.name}: ${audience.mindCount} members`;
  for (const m of audience.minds.slice(0, 5)) item("members", m.name ?? m.id);

  const hypothesis = {
    intent: "Split by seniority",
    subgroups: [
      { id: "junior", label: "Junior", definition: "Early-career staff" },
      { id: "senior", label: "Senior", definition: "Senior managers and directors" },
    ],
  };
  let formation = (
    await api<{ data: Formation }>(`/api/v1/audiences/${main}/formations`, key, {
      method: "POST",
      body: JSON.stringify({ hypothesis }),
    })
  ).data;
  item("timeline", `${formation.id}: ${formation.status}`);
  for (let i = 0; i < 30 && formation.status !== "ready"; i++) {
    const { now } = (await (
      await fetch("/__sim/clock/advance", { method: "POST", body: '{"ms":1000}' })
    ).json()) as { now: string };
    formation = (await api<{ data: Formation }>(`/api/v1/audiences/${main}/formations/${formation.id}`, key))
      .data;
    item("timeline", `${now.slice(11, 19)} ${formation.status}`);
  }
  $("status").textContent = formation.status;
  document.body.dataset.done = "true";
}

main().catch((error: unknown) => {
  $("status").textContent = `error: ${error instanceof Error ? error.message : String(error)}`;
  document.body.dataset.done = "error";
});
