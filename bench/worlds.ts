/**
 * Worlds of one's own under `npm run bench`, each measured beside the built-in default in the same process:
 * - building a world from a 5,000-Mind scenario document (a new document each time, so schema check,
 *   compile and build all count) against building the default scenario at a seed never built before;
 * - 300 sandboxes from that document sent inline against 300 sandboxes of the default scenario, each set
 *   in a fresh process: creation p50/p95 and resident memory per sandbox.
 * The default world holds about 5,400 Minds, so the two are of one size; like it, the document leaves no
 * training in flight (a world with training running schedules its jobs anew in every sandbox).
 */
import { median } from "./lib/load.ts";
import { launch, targetSpec } from "./lib/servers.ts";
import { benchSandboxes, post } from "./sandboxes.ts";

export interface WorldsResult {
  /** Reset to a new 5,000-Mind document, median of 5. */
  fileBuildMs: number;
  /** Reset to the default scenario at an unseen seed, median of 5: the baseline. */
  defaultBuildMs: number;
  fileOverDefault: number;
  sandboxes: {
    kind: "default" | "inline";
    count: number;
    p50Ms: number;
    p95Ms: number;
    rssPerSandboxMB: number;
  }[];
  inlineP95OverDefault: number;
  inlineRssOverDefault: number;
}

const SANDBOXES = 300;

/** A partner-sized world: two teams, a few users, 5,000 Minds across four Audiences. */
export function fiveThousandMinds(name: string): Record<string, unknown> {
  return {
    name,
    teams: { acme: { name: "Acme Research" } },
    users: {
      lead: { plan: "team", team: "acme" },
      analyst: { plan: "team", team: "acme" },
      viewer: { plan: "free" },
    },
    minds: { star: { owner: "lead", name: "Ada Star", attributes: { country: "DE" } } },
    audiences: {
      panel: {
        owner: "lead",
        topic: "Small-business owners in Latin America",
        members: ["star", { generate: 3999 }],
        public: true,
        grounding: true,
      },
      buyers: {
        owner: "lead",
        topic: "B2B SaaS buyers in Europe",
        members: [{ generate: 600 }],
        sharedWithTeam: true,
        grounding: { uploadedFile: true },
        scoredValidation: true,
      },
      clinics: {
        owner: "analyst",
        topic: "Hospital procurement leads",
        members: [{ generate: 400 }],
      },
      subset: {
        owner: "lead",
        members: [{ membersOf: "buyers", count: 50 }],
        collaborators: [{ user: "viewer", role: "member" }],
      },
    },
  };
}

export async function benchWorlds(log: (line: string) => void): Promise<WorldsResult> {
  const sim = await launch(targetSpec("simulator", {}), { path: "/_openapi.json", headers: {} });
  const file: number[] = [];
  const builtIn: number[] = [];
  try {
    // Alternated, so that drift on a shared machine falls on both alike.
    for (let i = 0; i < 6; i++) {
      const f = await post(sim.origin, "/__sim/reset", { scenario: fiveThousandMinds(`bench-${i}`) });
      const d = await post(sim.origin, "/__sim/reset", { scenario: "default", seed: 80_000 + i });
      // The first of each warms the code paths up.
      if (i > 0) {
        file.push(f.ms);
        builtIn.push(d.ms);
      }
    }
    const minds = Object.keys(
      (
        await post<{ users: Record<string, unknown> }>(sim.origin, "/__sim/reset", {
          scenario: fiveThousandMinds("count"),
        })
      ).json.users,
    );
    if (minds.length !== 3) throw new Error("the 5,000-Mind document did not build its users");
  } finally {
    await sim.stop();
  }
  log("worlds: builds timed");
  const made = async (kind: "default" | "inline") => {
    const body = kind === "inline" ? { scenario: fiveThousandMinds("partner") } : {};
    const r = await benchSandboxes(SANDBOXES, log, body);
    return {
      kind,
      count: r.count,
      p50Ms: r.createP50Ms,
      p95Ms: r.createP95Ms,
      rssPerSandboxMB: r.rssPerSandboxMB,
    };
  };
  const byDefault = await made("default");
  const inline = await made("inline");
  return {
    fileBuildMs: median(file),
    defaultBuildMs: median(builtIn),
    fileOverDefault: median(file) / median(builtIn),
    sandboxes: [byDefault, inline],
    inlineP95OverDefault: inline.p95Ms / byDefault.p95Ms,
    inlineRssOverDefault: inline.rssPerSandboxMB / byDefault.rssPerSandboxMB,
  };
}

export function printWorlds(r: WorldsResult): string {
  const lines = [
    "",
    "Worlds of one's own (a 5,000-Mind scenario document; baseline: the built-in default in the same process)",
    `  world build: document ${r.fileBuildMs.toFixed(1)} ms, default ${r.defaultBuildMs.toFixed(1)} ms (${r.fileOverDefault.toFixed(2)}x)`,
    "  sandboxes  count  create p50  create p95  RSS/sandbox",
    ...r.sandboxes.map(
      (s) =>
        `  ${s.kind.padEnd(9)}  ${String(s.count).padStart(5)}  ${s.p50Ms.toFixed(1).padStart(7)} ms  ${s.p95Ms.toFixed(1).padStart(7)} ms  ${s.rssPerSandboxMB.toFixed(3).padStart(8)} MB`,
    ),
    `  inline ÷ default: p95 ${r.inlineP95OverDefault.toFixed(2)}x, RSS per sandbox ${r.inlineRssOverDefault.toFixed(2)}x`,
  ];
  return `${lines.join("\n")}\n`;
}
