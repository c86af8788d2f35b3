import type { z } from "../zod.js";
import type { AnyJobAdapterV1 } from "./job-adapter-v1.js";

/**
 * How an adapter package plugs into the `jobtasks` command: the config file names a `kind`, the command
 * validates the instance's `options` block with `optionsSchema` (so errors name the field), then calls
 * `create`. Every adapter package exports one as `adapterDefinition`.
 */
export interface AdapterDefinitionV1<Options = any> {
  readonly kind: string;
  /** The shape of the `options` block of one adapter instance in the config file. */
  readonly optionsSchema: z.ZodType<Options>;
  /**
   * What a person may write in `options`, for the config file's JSON Schema (editor completion) only, when
   * the input side of optionsSchema cannot show it (a transform that merges a preset first). Optional;
   * never used to validate: optionsSchema decides.
   */
  readonly optionsEditorSchema?: z.ZodType;
  /**
   * Build the adapter. `environment` is where credentials named by reference are read from (defaults to
   * process.env); throw AdapterConfigError naming the option or variable when something is missing.
   */
  create(options: Options, environment?: Readonly<Record<string, string | undefined>>): AnyJobAdapterV1;
}
