import { wireChecks } from "./checks/wire.ts";
import { defineChecks } from "./lib/suite.ts";

defineChecks("wire", wireChecks);
