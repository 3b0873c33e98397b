// The committed records.schema.json is exactly what `npm run generate:record-schema` makes from records.ts.
import { it } from "vitest";
import { expectFreshGeneration } from "../../testing/generated.ts";

it("match a fresh generation from the record types", async () => {
  await expectFreshGeneration(
    "generate:record-schema",
    "ts-json-schema-generator/bin/ts-json-schema-generator.js",
    "src/resources/records.schema.json",
  );
}, 30_000);
