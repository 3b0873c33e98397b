// The committed scenario-document.gen.ts is exactly what `npm run generate:scenario-types` makes from the schema now.
import { it } from "vitest";
import { expectFreshGeneration } from "../../testing/generated.ts";

it("match a fresh generation from scenario.schema.json", async () => {
  await expectFreshGeneration(
    "generate:scenario-types",
    "json-schema-to-typescript/dist/src/cli.js",
    "src/contract/scenario-document.gen.ts",
  );
});
