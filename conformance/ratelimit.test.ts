import { rateLimitChecks } from "./checks/ratelimit.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("rate limit", rateLimitChecks);
