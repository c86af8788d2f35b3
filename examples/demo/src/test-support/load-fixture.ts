import { readFileSync } from "node:fs";
import type { DemoJobRecord } from "../demo-api/demo-job-record.js";

/** A job record saved from the demo API, from src/demo-adapter/__fixtures__/<name>.json. */
export function loadJobFixture(name: string): DemoJobRecord {
  const url = new URL(`../demo-adapter/__fixtures__/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as DemoJobRecord;
}
