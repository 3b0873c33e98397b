import { genericChecks } from "./checks/generic.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("generic", genericChecks);
