/** Where reports go: `reports/` under the working directory unless CONFORMANCE_REPORTS_DIR says otherwise. */
import { join, resolve } from "node:path";

export function reportsDir(): string {
  return resolve(process.env.CONFORMANCE_REPORTS_DIR ?? join(process.cwd(), "reports"));
}

/** Per-run scratch directory where test files leave violations and coverage for the final merge. */
export function fragmentsDir(runId: string): string {
  return join(reportsDir(), `.conformance-${runId}`);
}
