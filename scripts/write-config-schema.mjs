// `pnpm schema`: write the config file's JSON Schema, generated from the zod schemas the command validates
// with, into the jobtasks package. packages/cli/src/config-json-schema.test.ts fails when it is stale.
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { builtInConfigJsonSchema, configJsonSchemaFile } from "../packages/cli/dist/config-json-schema.js";

const file = fileURLToPath(new URL(`../packages/cli/${configJsonSchemaFile}`, import.meta.url));
await writeFile(file, `${JSON.stringify(await builtInConfigJsonSchema(), null, 2)}\n`);
console.log(`wrote ${file}`);
