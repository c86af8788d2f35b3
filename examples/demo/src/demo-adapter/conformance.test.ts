import { expect, it } from "vitest";
import { runAdapterConformance } from "@jobtasks/testkit";
import { startDemoApi, type RunningDemoApi } from "../demo-api/demo-api-server.js";
import type { DemoJobRecord } from "../demo-api/demo-job-record.js";
import { demoAdapter } from "./demo-adapter.js";
import type { DemoJobRef } from "./demo-job-ref.js";
import { call, createJob, waitForJob, waitForStatus } from "../test-support/demo-api-client-for-tests.js";
import { loadJobFixture } from "../test-support/load-fixture.js";

/**
 * The demo adapter against a real demo API on loopback, one per test. The API reaches every state but two
 * on its own; "queued" (too brief to catch reliably) and a status from the future are served from fixtures
 * by the fetch the adapter is given, which otherwise passes every call through.
 */

const password = "conformance-pa55word-7f3a";
let api: RunningDemoApi | undefined;
let fixtureJobs = new Map<string, DemoJobRecord>();

function currentApi(): RunningDemoApi {
  if (!api) throw new Error("createAdapter has not run");
  return api;
}

const fixtureFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const jobId = /^\/jobs\/([^/]+)$/.exec(url.pathname)?.[1];
  const fixture = jobId === undefined ? undefined : fixtureJobs.get(jobId);
  if (!fixture) return fetch(input, init);
  init?.signal?.throwIfAborted();
  return new Response(JSON.stringify(fixture), { status: 200, headers: { "content-type": "application/json" } });
};

function serveFixture(fixture: string, status?: string): DemoJobRef {
  const record = loadJobFixture(fixture);
  if (status !== undefined) record.status = status as DemoJobRecord["status"];
  fixtureJobs.set(record.id, record);
  return { jobId: record.id };
}

async function arrangeJob(body: Record<string, unknown>, status: string): Promise<DemoJobRef> {
  const { url } = currentApi();
  const job = await createJob(url, body);
  await waitForStatus(url, job.id, status);
  return { jobId: job.id };
}

async function arrangeStatus(rawStatus: string): Promise<DemoJobRef> {
  const { url } = currentApi();
  switch (rawStatus) {
    case "queued":
      return serveFixture("job-queued");
    case "running":
      return arrangeJob({ steps: 2, stepMs: 600_000 }, "running");
    case "waiting_for_approval":
      return arrangeJob({ steps: 2, stepMs: 0, approval: true }, "waiting_for_approval");
    case "succeeded":
      return arrangeJob({ steps: 2, stepMs: 0 }, "succeeded");
    case "failed":
      return arrangeJob({ steps: 2, stepMs: 0, fail: true }, "failed");
    case "rejected": {
      const ref = await arrangeJob({ steps: 2, stepMs: 0, approval: true }, "waiting_for_approval");
      const waiting = await waitForStatus(url, ref.jobId, "waiting_for_approval");
      await call(url, "POST", `/jobs/${ref.jobId}/approval`, {
        approvalId: waiting.approval?.id,
        approve: false,
        comment: "not today",
      });
      return ref;
    }
    case "cancelled": {
      const ref = await arrangeJob({ steps: 2, stepMs: 600_000 }, "running");
      await call(url, "POST", `/jobs/${ref.jobId}/cancel`);
      await waitForStatus(url, ref.jobId, "cancelled");
      return ref;
    }
    default:
      // A value the API does not produce today, in an otherwise real record.
      return serveFixture("job-future-status", rawStatus);
  }
}

const terminalStatuses = ["succeeded", "failed", "rejected", "cancelled"];

runAdapterConformance<DemoJobRef>({
  name: "demo",
  async createAdapter() {
    fixtureJobs = new Map();
    api = await startDemoApi({ port: 0, queueDelayMs: 5, cancelDelayMs: 5 });
    return demoAdapter({ baseUrl: `http://conformance:${password}@127.0.0.1:${api.port}`, fetch: fixtureFetch });
  },
  async cleanup() {
    await api?.close();
    api = undefined;
  },
  secrets: [password],
  statuses: [
    { rawStatus: "queued", expected: "working" },
    { rawStatus: "running", expected: "working" },
    { rawStatus: "waiting_for_approval", expected: "input_required" },
    { rawStatus: "succeeded", expected: "completed", isError: false },
    { rawStatus: "failed", expected: "completed", isError: true },
    { rawStatus: "rejected", expected: "completed", isError: true },
    { rawStatus: "cancelled", expected: "cancelled" },
  ],
  arrangeStatus,
  unknownRawStatus: "paused_for_maintenance",
  arrangeNotFound: () => ({ jobId: "job_neverCreated" }),
  async arrangeRetryableFailure() {
    const ref = await arrangeJob({ steps: 2, stepMs: 600_000 }, "running");
    await call(currentApi().url, "POST", "/_faults", { status: 503, count: 1 });
    return ref;
  },
  start: { tool: "demo_pipeline", input: { steps: 2, stepMs: 5 } },
  inputRequired: {
    arrange: () => arrangeStatus("waiting_for_approval"),
    response: { action: "accept", content: { approve: true, comment: "conformance" } },
    async verifyResponded(ref) {
      const record = await waitForJob(currentApi().url, ref.jobId, () => true);
      return record.approval?.state === "approved" && record.status !== "waiting_for_approval";
    },
  },
  cancel: {
    arrange: () => arrangeStatus("running"),
    async verifyCancelRequested(ref) {
      return (await waitForStatus(currentApi().url, ref.jobId, "cancelled")).status === "cancelled";
    },
  },
  additionalTests({ harness, createAdapter, createContext }) {
    for (const rawStatus of terminalStatuses) {
      it(`keeps a ${rawStatus} snapshot unchanged when read again`, async () => {
        const adapter = await createAdapter();
        const ref = await harness.arrangeStatus(rawStatus);
        const first = await adapter.doGetStatus(ref, createContext());
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await adapter.doGetStatus(ref, createContext())).toEqual(first);
      });
    }
  },
});
