// What the command line's bundle gives the SDK for "@modelcontextprotocol/server/_shims" (its Node shims;
// scripts/bundle-command-line.mjs): the same `process`, and a DefaultJsonSchemaValidator that loads the SDK's
// ajv validator at its first schema. The SDK's own shims import ajv (about 7,000 bundled lines, evaluated on
// load) for a validator that a server uses only to check an elicitation answer; loaded here at first use, a
// stdio start answers 4-14 ms sooner on Node 22, 7 ms on Node 24 (BENCHMARKS.md, 7). esbuild bundles the `require`
// below as a function it calls here, on first use.
import process from "node:process";

let ajvValidator;

export class DefaultJsonSchemaValidator {
  getValidator(schema) {
    ajvValidator ??= new (require("@modelcontextprotocol/server/validators/ajv").AjvJsonSchemaValidator)();
    return ajvValidator.getValidator(schema);
  }
}

export { process };
