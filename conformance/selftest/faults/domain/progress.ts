/** The deliberate faults that the checks of checks/domain/progress.ts must each report. */

import * as checks from "../../../checks/domain/progress.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, editWhen, on } from "../../fault-kit.ts";
import { editProgress } from "../helpers.ts";

export const PROGRESS_FAULTS: FaultCase[] = [
  ...casesOf(checks.progressRules, {
    "progress reports failed members": editWhen(on("GET", /\/progress$/), (b) => {
      if (b?.data?.readiness) b.data.readiness.failed = 1;
    }),
    // The summary counts only completed members as ready, while the rows say members still training can chat.
    "readiness leaves training members that can chat out of ready, isReady and learning": editWhen(
      on("GET", /\/progress$/),
      (b) => {
        const rows = (b?.data?.members ?? []) as {
          update: { readyToChat: boolean; trainingStatus: string };
        }[];
        if (!b?.data?.readiness) return;
        const ready = rows.filter(
          (m) => m.update.readyToChat && m.update.trainingStatus === "completed",
        ).length;
        Object.assign(b.data.readiness, { ready, isReady: ready === rows.length && ready > 0, learning: 0 });
      },
    ),
  }),
  ...casesOf(checks.progressRules, {
    "a member being repaired shows trainingStatus running": editProgress((d) => {
      const m = d.members.find((x) => x.update.trainingStatus === "running");
      if (m) m.update.beingRepaired = true;
    }),
    "readiness.training leaves out members in training": editProgress((d) => {
      d.readiness.training = 0;
    }),
    "startsNow true while members train": editProgress((d) => {
      d.readiness.startsNow = true;
    }),
    "startsNow false although nothing trains and every member can chat": editProgress((d) => {
      if (d.readiness.training === 0 && d.readiness.isReady === true) d.readiness.startsNow = false;
    }),
    "leftOut counts none of the members still in training": editProgress((d) => {
      d.readiness.leftOut = 0;
    }),
    "fullyTrained while members still learn": editProgress((d) => {
      d.readiness.fullyTrained = d.readiness.isReady;
    }),
  }),
];
