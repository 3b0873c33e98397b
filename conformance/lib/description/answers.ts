/**
 * What one answer must show, as functions over it: the description's rules that a single answer can break
 * on its own (an order, a shape that contradicts itself, a code that is no code, a stream out of order).
 * The kit's checks judge the answers they ask for with these, and the validating proxy the answers it sees
 * pass, so that both say a rule the same way.
 */
import { validate } from "./contract.ts";

/**
 * ISO 3166-1 alpha-2: two capitals that Intl names as a region in their own right (not "UK", an alias it
 * canonicalizes to GB, nor ZZ, the unknown region).
 */
const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

export const isAlpha2 = (v: string) =>
  /^[A-Z]{2}$/.test(v) &&
  v !== "ZZ" &&
  regions.of(v) !== undefined &&
  new Intl.Locale("und", { region: v }).region === v;

export interface Facet {
  key: string;
  values: { value: string; count: number }[];
  unknownCount: number;
}

/** Where a filter-attributes answer contradicts itself (what one answer can show, the proxy's too). */
export function filterShapeProblems(
  d:
    | {
        mindIds: string[];
        truncated: boolean;
        matchCount: number;
        totalMinds: number;
        attributedMinds: number;
      }
    | undefined,
): string[] {
  if (!d || !Array.isArray(d.mindIds)) return [];
  const out: string[] = [];
  if (!sortedAsc(d.mindIds)) out.push("mindIds are not sorted by ID");
  if (new Set(d.mindIds).size !== d.mindIds.length) out.push("mindIds repeat an ID");
  if (!d.truncated && d.mindIds.length !== d.matchCount)
    out.push(`matchCount ${d.matchCount} but ${d.mindIds.length} mindIds`);
  if (d.matchCount > d.totalMinds || d.attributedMinds > d.totalMinds)
    out.push("matchCount or attributedMinds exceed totalMinds");
  return out;
}

/** Country values that are not ISO 3166-1 alpha-2 codes. */
export function countryProblems(facets: Facet[] | undefined): string[] {
  const countries = (facets ?? []).find((f) => f.key === "country")?.values ?? [];
  const notCodes = countries.map((v) => v.value).filter((v) => !isAlpha2(v));
  return notCodes.length
    ? [`country values that are not ISO 3166-1 alpha-2 codes: ${notCodes.slice(0, 5).join(", ")}`]
    : [];
}

/** Every format the description names for each kind; the one it leaves out is a 400. */
export const OFFERED_FORMATS = {
  brief: ["pdf", "md", "markdown", "docx", "pptx"],
  validation_report: ["pdf", "md", "markdown", "docx", "xlsx"],
} as const;

interface Update {
  readyToChat?: boolean;
  learningInBackground?: boolean;
  trainingStatus?: string;
  beingRepaired?: boolean;
}

/**
 * Where a progress document's readiness disagrees with its rows: `isReady` is "every member can chat",
 * `learning` "ready members still learning", `fullyTrained` "every member can chat and none is learning",
 * members being retrained count in `training`, `failed` is always 0, `startsNow` holds when nothing trains
 * and at least one member and at least half of them can chat, and `leftOut` is the members in training.
 */
export function readinessDisagreements(data: {
  members?: { update?: Update }[];
  readiness?: Record<string, unknown>;
}): string[] {
  const rows = (data.members ?? []).map((m) => m.update ?? {});
  const r = data.readiness ?? {};
  const canChat = rows.filter((u) => u.readyToChat === true);
  const learning = canChat.filter((u) => u.learningInBackground === true).length;
  const training = rows.filter((u) => u.trainingStatus === "queued" || u.trainingStatus === "running").length;
  const isReady = rows.length > 0 && canChat.length === rows.length;
  const out: string[] = [];
  const want = (field: string, expected: unknown, why: string) => {
    if (r[field] !== expected) out.push(`readiness.${field} is ${JSON.stringify(r[field])}; ${why}`);
  };
  want("total", rows.length, `${rows.length} members are listed`);
  want("failed", 0, "it is always 0");
  want("ready", canChat.length, `${canChat.length} members' rows say readyToChat`);
  want("isReady", isReady, `${canChat.length} of ${rows.length} members can chat`);
  want("learning", learning, `${learning} members that can chat are learning in the background`);
  want("fullyTrained", isReady && learning === 0, `isReady is ${isReady} and ${learning} are learning`);
  want("training", training, `${training} members are queued or running`);
  // A Study runs at once when nothing trains and at least one member, and at least half of them, answer;
  // the members it would run without are those still being prepared.
  const starts = training === 0 && canChat.length >= 1 && canChat.length * 2 >= rows.length;
  want("startsNow", starts, `${training} train and ${canChat.length} of ${rows.length} members can chat`);
  want("leftOut", training, `${training} members are still being prepared`);
  for (const u of rows)
    if (u.beingRepaired === true && u.trainingStatus !== "queued")
      out.push(`a member being repaired has trainingStatus ${u.trainingStatus}`);
  return out;
}

type PreviewEvent = { type?: string; data?: Record<string, unknown> };

/**
 * What breaks the preview stream's rules in an NDJSON answer's text: lines of JSON, each a PreviewEvent,
 * in the order meta, status, then subgroups or error, and done last. The kit's check and the validating
 * proxy (judging a stream that went through it) both say it with this.
 */
export function streamProblems(text: string): { problems: string[]; events: PreviewEvent[] } {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const events: PreviewEvent[] = [];
  for (const line of lines) {
    try {
      events.push(JSON.parse(line));
    } catch {
      return { problems: [`a line is not JSON: ${line.slice(0, 80)}`], events };
    }
  }
  const problems: string[] = [];
  for (const e of events)
    if (validate("#/components/schemas/PreviewEvent", e).length > 0)
      problems.push(`event ${JSON.stringify(e).slice(0, 120)} breaks PreviewEvent`);
  const shape = events.map((e) => e.type).join(",");
  if (shape !== "meta,status,subgroups,done" && shape !== "meta,status,error,done")
    problems.push(`events ${shape}, not meta, status, subgroups or error, then done`);
  if (!(text.endsWith("\n") || lines.length === 0 || text.trimEnd() === text)) problems.push("framing");
  return { problems, events };
}

/** The orders the description asks listings to keep: newest first (descending), by ID (ascending). */
export const sortedDesc = (xs: string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) >= x);
export const sortedAsc = (xs: string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) <= x);
