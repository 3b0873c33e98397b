/** Where reports go: `reports/` under the working directory unless CONFORMANCE_REPORTS_DIR says otherwise. */
import { join, resolve } from "node:path";

export function reportsDir(): string {
  // `npm run` moves into the package; INIT_CWD is where the user ran it from.
  const here = process.env.INIT_CWD ?? process.cwd();
  return resolve(here, process.env.CONFORMANCE_REPORTS_DIR ?? "reports");
}

/** Per-run scratch directory where test files leave violations and coverage for the final merge. */
export function fragmentsDir(runId: string): string {
  return join(reportsDir(), `.conformance-${runId}`);
}
