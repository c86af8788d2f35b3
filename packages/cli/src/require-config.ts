import { UsageError } from "./usage-error.js";

/**
 * --config is checked in the action rather than declared mandatory: commander reports a missing
 * mandatory option before an unknown one, and "--prot" deserves "did you mean --port?" first.
 */
export function requireConfig(config: string | undefined): string {
  if (!config) throw new UsageError("--config <file> is required");
  return config;
}
