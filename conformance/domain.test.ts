import { domainChecks } from "./checks/domain.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("domain", domainChecks);
