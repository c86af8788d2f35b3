import { readFileSync } from "node:fs";
import type { JobDetail } from "@aws-sdk/client-batch";

const fixtureDirectory = new URL("../__fixtures__/", import.meta.url);

/** A fixture file parsed fresh on every call, so a test may change it freely. */
export function readFixture<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, fixtureDirectory), "utf8")) as T;
}

/** The one job of a describe-jobs-*.json fixture, with some fields replaced. */
export function fixtureJob(name: string, changes: Partial<JobDetail> = {}): JobDetail {
  const job = readFixture<{ jobs: JobDetail[] }>(name).jobs[0] as JobDetail;
  return { ...job, ...changes };
}
