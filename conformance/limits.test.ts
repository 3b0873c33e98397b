import { limitChecks } from "./checks/limits.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("limits", limitChecks);
