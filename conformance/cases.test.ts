import { caseChecks } from "./cases/index.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("cases", caseChecks);
