import { runAdapterConformance } from "@jobtasks/testkit";
import { expect, it } from "vitest";
import type { JobRef } from "./job-ref.js";
import { arrangeJob } from "./test-support/arrange-jobs.js";
import { FakeKubernetesApi, fakeToken } from "./test-support/fake-kubernetes-api.js";
import { clientRuns, createTestAdapter, skipReason } from "./test-support/kubernetes-test-adapter.js";

// A fresh fake API server per test (createAdapter runs before every arrange*).
let fake: FakeKubernetesApi;

const skipAll = "@kubernetes/client-node 2.x needs Node >= 22.19";
const everyGroup = [
  "shape",
  "statuses",
  "unknownStatus",
  "notFound",
  "retryable",
  "secrets",
  "abort",
  "start",
  "respond",
  "cancel",
] as const;

runAdapterConformance<JobRef>({
  name: `kubernetes${skipReason}`,
  secrets: [fakeToken],
  ...(clientRuns ? {} : { skip: Object.fromEntries(everyGroup.map((group) => [group, skipAll])) }),
  async createAdapter() {
    fake = await new FakeKubernetesApi().start();
    return createTestAdapter(fake);
  },
  async cleanup() {
    await fake?.close();
  },
  statuses: [
    { rawStatus: "Pending", expected: "working" },
    { rawStatus: "Running", expected: "working" },
    { rawStatus: "Suspended", expected: "working" },
    { rawStatus: "Suspended+approval", expected: "input_required" },
    { rawStatus: "FailureTarget", expected: "working" },
    { rawStatus: "SuccessCriteriaMet", expected: "working" },
    { rawStatus: "CancelRequested", expected: "working" },
    { rawStatus: "Complete", expected: "completed", isError: false },
    { rawStatus: "Failed", expected: "completed", isError: true },
    { rawStatus: "Rejected", expected: "completed", isError: true },
    { rawStatus: "Cancelled", expected: "cancelled" },
  ],
  arrangeStatus: (rawStatus) => arrangeJob(fake, "batch", rawStatus),
  unknownRawStatus: "Hibernating",
  arrangeNotFound: () => ({ namespace: "batch", name: "no-such-job", uid: "5d0c4b0e-0000-4000-8000-000000000000" }),
  // Every request in this namespace is answered 503: its watch never syncs, and the read asks the API.
  arrangeRetryableFailure() {
    fake.failingNamespaces.add("flaky");
    return { namespace: "flaky", name: "any-job", uid: "5d0c4b0e-0000-4000-8000-000000000001" };
  },
  start: { tool: "migrate_database", input: { target: "42" } },
  inputRequired: {
    arrange: () => arrangeJob(fake, "ml", "Suspended+approval", { "jobtasks.io/tool": "train_model" }),
    response: { action: "accept", content: { approve: true } },
    verifyResponded: (ref) => fake.job(ref.namespace, ref.name)?.spec.suspend === false,
  },
  cancel: {
    arrange: () => arrangeJob(fake, "batch", "Running"),
    verifyCancelRequested: (ref) =>
      fake.requests.some(
        (request) =>
          request.method === "DELETE" &&
          request.path.endsWith(`/jobs/${ref.name}`) &&
          (request.body as { propagationPolicy?: string; preconditions?: { uid?: string } }).propagationPolicy ===
            "Background" &&
          (request.body as { preconditions?: { uid?: string } }).preconditions?.uid === ref.uid,
      ),
  },
  additionalTests({ harness, createAdapter, createContext }) {
    it.skipIf(!clientRuns)(
      "keeps a finished Job's answer the same on every read, and after the cluster deleted it",
      async () => {
        const adapter = await createAdapter();
        const ref = await harness.arrangeStatus("Failed");
        const first = await adapter.doGetStatus(ref, createContext());
        fake.removeJob(ref.namespace, ref.name);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await adapter.doGetStatus(ref, createContext())).toEqual(first);
      },
    );
  },
});
