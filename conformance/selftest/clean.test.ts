/** The unbroken simulator passes every check clean: no false alarms. */
import { expect, it } from "vitest";
import { domainChecks } from "../checks/domain.ts";
import { genericChecks } from "../checks/generic.ts";
import { limitChecks } from "../checks/limits.ts";
import { rateLimitChecks } from "../checks/ratelimit.ts";
import { statefulChecks } from "../checks/stateful.ts";
import { wireChecks } from "../checks/wire.ts";
import { formatViolations } from "../lib/report.ts";
import { brokenServer, runAll } from "./harness.ts";

it("the simulator as it is passes every check", async () => {
  const server = await brokenServer(null, 11);
  try {
    const found = await runAll(
      [
        ...genericChecks,
        ...limitChecks,
        ...domainChecks,
        ...statefulChecks,
        ...rateLimitChecks,
        ...wireChecks,
      ],
      server.info,
    );
    expect(found, formatViolations(found)).toEqual([]);
  } finally {
    await server.close();
  }
});
