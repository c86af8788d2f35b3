import type { DemoJobRecord } from "../demo-api/demo-job-record.js";

/** Plain fetch helpers for tests that talk to a demo API started on loopback. */

export interface JsonAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonAnswer<T>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

export async function createJob(baseUrl: string, body: Record<string, unknown> = {}): Promise<DemoJobRecord> {
  const answer = await call<DemoJobRecord>(baseUrl, "POST", "/jobs", body);
  if (answer.status !== 201) throw new Error(`POST /jobs answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Poll a job until `predicate` holds; fails the test with the last record after `timeoutMs`. */
export async function waitForJob(
  baseUrl: string,
  jobId: string,
  predicate: (record: DemoJobRecord) => boolean,
  // Generous for a loaded CI machine; still well inside vitest's 20 s test timeout.
  timeoutMs = 10_000,
): Promise<DemoJobRecord> {
  const deadline = Date.now() + timeoutMs;
  let last: JsonAnswer<DemoJobRecord> | undefined;
  while (Date.now() < deadline) {
    last = await call<DemoJobRecord>(baseUrl, "GET", `/jobs/${jobId}`);
    if (last.status === 200 && predicate(last.body)) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`job ${jobId} did not reach the expected state; last answer: ${JSON.stringify(last)}`);
}

export function waitForStatus(
  baseUrl: string,
  jobId: string,
  status: string,
  timeoutMs?: number,
): Promise<DemoJobRecord> {
  return waitForJob(baseUrl, jobId, (record) => record.status === status, timeoutMs);
}
