// A minimal adapter package, as a user writing their own adapter would ship it: it exports
// adapterDefinition and validates its options. Jobs finish on their first status read.
import { AdapterConfigError, z } from "@jobtasks/core";

export const adapterDefinition = {
  kind: "tiny",
  optionsSchema: z.strictObject({
    baseUrl: z.url(),
    toolName: z.string().default("tiny_job"),
    tokenVariable: z.string().optional(),
    // For the test that a stray rejected promise does not stop the server.
    strayRejection: z.boolean().default(false),
  }),
  create(options, environment = process.env) {
    if (options.tokenVariable && !environment[options.tokenVariable]) {
      throw new AdapterConfigError("tokenVariable", `environment variable ${options.tokenVariable} is not set`);
    }
    if (options.strayRejection) setTimeout(() => Promise.reject(new Error("stray rejection from the tiny adapter")), 200);
    return {
      specificationVersion: "v1",
      kind: "tiny",
      tools: [
        {
          name: options.toolName,
          description: "Runs a tiny job",
          inputSchema: z.strictObject({ size: z.number().int().min(1).default(1) }),
          async doStart(input) {
            return { ref: { size: input.size } };
          },
        },
      ],
      async doGetStatus(ref) {
        return { status: "completed", rawStatus: "done", result: { content: [{ type: "text", text: `size ${ref.size}` }] } };
      },
    };
  },
};
