/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`): the functions with the most self time, across every
 * `.cpuprofile` in a directory (or one file). Usage: node --import tsx bench/profile.ts [DIR|FILE] [TOP]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarizeProfile(target: string, top = 25): string {
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => path.join(target, f))
    : [target];
  if (files.length === 0) return `no .cpuprofile in ${target}\n`;
  const self = new Map<string, number>();
  /** Time with the function anywhere on the stack (each function counted once per sample). */
  const inclusive = new Map<string, number>();
  let total = 0;
  const nameOf = (node: ProfileNode): string => {
    const f = node.callFrame;
    const where = f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : "";
    return `${f.functionName || "(anonymous)"} ${where}`.trim();
  };
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    for (let i = 0; i < p.samples.length; i++) {
      const node = byId.get(p.samples[i] as number);
      const dt = p.timeDeltas[i] ?? 0;
      if (!node) continue;
      const name = nameOf(node);
      self.set(name, (self.get(name) ?? 0) + dt);
      total += dt;
      const seen = new Set<string>();
      for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
        const n = byId.get(id);
        if (!n) break;
        const fn = nameOf(n);
        if (seen.has(fn)) continue;
        seen.add(fn);
        inclusive.set(fn, (inclusive.get(fn) ?? 0) + dt);
      }
    }
  }
  const idle = ["(idle)", "(program)", "(garbage collector)"];
  const busy =
    total - idle.filter((n) => n !== "(garbage collector)").reduce((a, n) => a + (self.get(n) ?? 0), 0);
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  const lines = [
    `${files.length} profile(s), ${(total / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (not idle/program)`,
    "self ms   % busy  function",
  ];
  for (const [name, us] of rows) {
    const pct = idle.slice(0, 2).includes(name) ? "" : ((us / busy) * 100).toFixed(1);
    lines.push(`${(us / 1000).toFixed(0).padStart(7)}  ${pct.padStart(6)}  ${name}`);
  }
  lines.push("", "incl ms   % busy  project function (self and callees)");
  const own = [...inclusive.entries()]
    // The bundle `npm start` runs (dist/) is project code too, under its own line numbers.
    .filter(([name]) => / (src|scenarios|generators|bench|dist)\//.test(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  for (const [name, us] of own) {
    lines.push(
      `${(us / 1000).toFixed(0).padStart(7)}  ${((us / busy) * 100).toFixed(1).padStart(6)}  ${name}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function shortUrl(url: string): string {
  const u = url.replace(/^file:\/\//, "");
  const i = u.indexOf("/node_modules/");
  if (i >= 0) return u.slice(i + 1);
  const j = u.indexOf("/src/");
  if (j >= 0) return u.slice(j + 1);
  return u.replace(/^.*\/(bench|dist)\//, "$1/");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = process.argv[2] ?? "reports/cpu";
  process.stdout.write(summarizeProfile(target, Number(process.argv[3] ?? "25")));
}
