import { wireChecks } from "./checks/wire.ts";
import { defineChecks } from "./lib/running/suite.ts";

defineChecks("wire", wireChecks);
