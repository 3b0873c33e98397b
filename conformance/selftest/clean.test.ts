/** The unbroken simulator passes every check clean: no false alarms. */
import { expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import { formatViolations } from "../lib/reporting/report.ts";
import { brokenServer, runAll } from "./harness.ts";

it("the simulator as it is passes every check", async () => {
  const server = await brokenServer(null, 11);
  try {
    const found = await runAll(allChecks, server.info);
    expect(found, formatViolations(found)).toEqual([]);
  } finally {
    await server.close();
  }
});
