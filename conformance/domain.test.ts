import { domainChecks } from "./checks/domain.ts";
import { defineChecks } from "./lib/suite.ts";

defineChecks("domain", domainChecks);
