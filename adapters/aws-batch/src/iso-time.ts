/**
 * An epoch-milliseconds time from AWS as ISO 8601, or undefined when it is not a usable date. The SDK does
 * not check answers, and `new Date(1e20).toISOString()` throws a RangeError, which would turn one odd
 * field into a failed status read.
 */
export function isoTimeOf(epochMs: unknown): string | undefined {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) return undefined;
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
