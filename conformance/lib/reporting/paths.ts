/** Where reports go: `reports/` under the working directory unless CONFORMANCE_REPORTS_DIR says otherwise. */
import { join, resolve } from "node:path";

export function reportsDir(): string {
  return resolve(userDir(), process.env.CONFORMANCE_REPORTS_DIR ?? "reports");
}

/**
 * Where the user ran the kit from, against which their paths resolve. `npm run conformance` moves into
 * the package and leaves the user's directory in INIT_CWD; anywhere else INIT_CWD may be an ancestor's
 * (a tool started from another npm script inherits it), so the working directory is the answer.
 */
export function userDir(): string {
  const viaNpmRun = process.env.npm_lifecycle_event === "conformance" && process.env.INIT_CWD;
  return viaNpmRun || process.cwd();
}

/** Per-run scratch directory where test files leave violations and coverage for the final merge. */
export function fragmentsDir(runId: string): string {
  return join(reportsDir(), `.conformance-${runId}`);
}
