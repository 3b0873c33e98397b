import { statefulChecks } from "./checks/stateful.ts";
import { defineChecks } from "./lib/suite.ts";

defineChecks("stateful", statefulChecks);
