import { rateLimitChecks } from "./checks/ratelimit.ts";
import { defineChecks } from "./lib/suite.ts";

defineChecks("rate limit", rateLimitChecks);
