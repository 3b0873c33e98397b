import { statefulChecks } from "./checks/stateful.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("stateful", statefulChecks);
