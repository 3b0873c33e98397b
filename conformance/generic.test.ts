import { genericChecks } from "./checks/generic.ts";
import { defineChecks } from "./lib/suite.ts";

defineChecks("generic", genericChecks);
