/** The setup part of a scenario document: its steps name users and handles that the built world has. */

import type { ScenarioDocument } from "../../contract/scenario-document.gen.ts";
import { PLACEHOLDER_KINDS } from "../../core/world/scenario.ts";
import type { Applying, HandleKind } from "./applying.ts";

/** Any `{word.handle}`, to say which are no placeholder at all (the core's PLACEHOLDER takes known kinds). */
const ANY_PLACEHOLDER = /\{([a-z]+)\.([^}]*)\}/g;

/**
 * Checked with the rest of the document, so one answer holds every problem; the steps themselves are made
 * on each new world (src/core/world/scenario.ts), where a refused one is reported.
 */
export function checkSetup(w: Applying, doc: ScenarioDocument): void {
  const { manifest } = w.b;
  doc.setup?.forEach((step, i) => {
    if (!("as" in step)) return;
    if (!Object.hasOwn(manifest.users, step.as))
      w.dangling("users", step.as, `/setup/${i}/as`, "names no user of this scenario");
    for (const [, kind, handle] of step.path.matchAll(ANY_PLACEHOLDER)) {
      const section = (PLACEHOLDER_KINDS as readonly string[]).includes(kind as string)
        ? (manifest[kind as (typeof PLACEHOLDER_KINDS)[number]] as Record<string, unknown>)
        : undefined;
      if (!section)
        w.problem(
          `/setup/${i}/path`,
          `{${kind}.…} is no placeholder: use one of ${PLACEHOLDER_KINDS.map((k) => `{${k}.HANDLE}`).join(", ")}`,
        );
      else if (!Object.hasOwn(section, handle as string))
        w.dangling(
          kind as HandleKind,
          handle as string,
          `/setup/${i}/path`,
          `{${kind}.${handle}} names no handle of this scenario`,
        );
    }
  });
}
