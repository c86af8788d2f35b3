import { z } from "@jobtasks/core";

/**
 * The options of one demo adapter: what the `options` block of a `kind: demo` adapter holds in a config
 * file, and what `demoAdapter(options)` takes besides its programmatic extra (a fetch). This schema is the
 * option reference; the README repeats it in a table.
 */

const baseUrlHint = "the demo API's URL, e.g. http://127.0.0.1:4010 (start the API with `pnpm demo:api`)";
const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/;
const positiveMilliseconds = "must be a positive integer number of milliseconds";

/**
 * What a broken `baseUrl` is told. Never the value itself, nor a parser's error (which carries it): a URL
 * may hold a password. Only its scheme, which holds none, is repeated.
 */
function baseUrlProblem(input: unknown): string {
  if (input === undefined || (typeof input === "string" && input.trim() === "")) return `required: ${baseUrlHint}`;
  if (typeof input !== "string") return `expected a string: ${baseUrlHint}`;
  if (!URL.canParse(input.trim())) return `not a valid URL; expected ${baseUrlHint}`;
  return `must be an http or https URL, got ${new URL(input.trim()).protocol}; expected ${baseUrlHint}`;
}

export const demoAdapterOptionsSchema = z.strictObject({
  /**
   * Where the demo job API listens, e.g. http://127.0.0.1:4010 (what `pnpm demo:api` prints). Required.
   * Credentials in the URL (`http://user:password@host`) are sent as HTTP Basic authentication and kept out
   * of every message.
   */
  baseUrl: z
    .url({ protocol: /^https?$/, error: (issue) => baseUrlProblem(issue.input) })
    .describe(
      "The demo API's URL, e.g. http://127.0.0.1:4010. Credentials in it (http://user:password@host) are sent as Basic authentication.",
    ),
  /** Suggested client polling interval, in milliseconds. Default 1000. */
  pollIntervalMs: z
    .number({ error: positiveMilliseconds })
    .int(positiveMilliseconds)
    .positive(positiveMilliseconds)
    .default(1000)
    .describe("Suggested client polling interval, in milliseconds. Default 1000."),
  /** Name of the MCP tool. Default "demo_pipeline". */
  toolName: z
    .string({ error: "must be a string" })
    .regex(toolNamePattern, "must be 1 to 128 characters from A-Z a-z 0-9 _ - .")
    .default("demo_pipeline")
    .describe('Name of the MCP tool (1 to 128 characters from A-Z a-z 0-9 _ - .). Default "demo_pipeline".'),
});

/** The options as written, in a config file or in code (defaults optional). */
export type DemoAdapterConfig = z.input<typeof demoAdapterOptionsSchema>;
/** The options with every default applied. */
export type ResolvedDemoAdapterConfig = z.output<typeof demoAdapterOptionsSchema>;
