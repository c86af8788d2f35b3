import { readFileSync } from "node:fs";

/** A trimmed, real-shaped upstream answer from src/__fixtures__. */
export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../__fixtures__/${name}.json`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;
}
