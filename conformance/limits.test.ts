import { limitChecks } from "./checks/limits.ts";
import { defineChecks } from "./lib/suite.ts";

defineChecks("limits", limitChecks);
