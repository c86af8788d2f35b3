/** "90" (seconds), "30s", "5m", "1h", "1500ms" → milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match) return undefined;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"];
  const milliseconds = Number(match[1]) * unit;
  return milliseconds > 0 ? Math.round(milliseconds) : undefined;
}
