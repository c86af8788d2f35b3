import { readFileSync } from "node:fs";
import type { JobRef } from "../job-ref.js";
import type { FakeKubernetesApi } from "./fake-kubernetes-api.js";

/** Jobs and pods in the states the tests ask for, from the trimmed real answers in __fixtures__. */

const fixtures = new URL("../__fixtures__/", import.meta.url);

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, fixtures), "utf8")) as T;
}

const now = () => new Date().toISOString();
const condition = (type: string, extra: Record<string, string> = {}) => ({
  type,
  status: "True",
  lastTransitionTime: now(),
  ...extra,
});

/** The Job's spec and status for one raw status as the adapter names it. */
export function jobIn(rawStatus: string): {
  spec: Record<string, any>;
  status: Record<string, any>;
  annotations?: Record<string, string>;
} {
  const spec = { backoffLimit: 2, completions: 1, parallelism: 1, template: { spec: { containers: [] } } };
  const started = { startTime: now() };
  switch (rawStatus) {
    case "Pending":
      return { spec, status: { ...started, active: 0 } };
    case "Running":
      return { spec, status: { ...started, active: 1, ready: 1 } };
    case "Suspended":
      return {
        spec: { ...spec, suspend: true },
        status: { conditions: [condition("Suspended", { reason: "JobSuspended" })] },
      };
    case "Suspended+approval":
      return {
        spec: { ...spec, suspend: true },
        status: { conditions: [condition("Suspended", { reason: "JobSuspended" })] },
        annotations: { "jobtasks.io/approval": "pending" },
      };
    case "FailureTarget":
      return {
        spec,
        status: { ...started, active: 1, conditions: [condition("FailureTarget", { reason: "BackoffLimitExceeded" })] },
      };
    case "SuccessCriteriaMet":
      return { spec, status: { ...started, active: 1, succeeded: 1, conditions: [condition("SuccessCriteriaMet")] } };
    case "CancelRequested":
      return { spec, status: { ...started, active: 1 }, annotations: { "jobtasks.io/cancel-requested": now() } };
    case "Cancelled":
      return { spec, status: { ...started, active: 0 }, annotations: { "jobtasks.io/cancel-requested": now() } };
    case "Complete":
      return { spec, status: fixture("job-status-complete.json") };
    case "Failed":
      return { spec, status: fixture("job-status-failed.json") };
    case "Rejected":
      return { spec: { ...spec, suspend: true }, status: {}, annotations: { "jobtasks.io/approval": "rejected" } };
    default:
      // A condition Kubernetes may add one day.
      return { spec, status: { ...started, active: 1, conditions: [condition(rawStatus)] } };
  }
}

let counter = 0;

/** A Job in `rawStatus` in the fake, with pods and logs where its state has them; its ref. */
export function arrangeJob(
  fake: FakeKubernetesApi,
  namespace: string,
  rawStatus: string,
  labels: Record<string, string> = {},
): JobRef {
  counter += 1;
  const state = jobIn(rawStatus);
  const job = fake.addJob(namespace, {
    metadata: {
      name: `job-${rawStatus.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${counter}`,
      labels: { "jobtasks.io/tool": "migrate_database", ...labels },
      ...(state.annotations ? { annotations: state.annotations } : {}),
    },
    spec: state.spec,
    status: state.status,
  });
  const name = job.metadata.name as string;
  if (rawStatus === "Complete")
    fake.addPod(namespace, name, fixture("pod-succeeded.json"), "migrating 0041\nmigrating 0042\nschema at 0042\n");
  if (rawStatus === "Failed")
    fake.addPod(
      namespace,
      name,
      fixture("pod-oom-killed.json"),
      "migrating 0042_add_index\nbuilding index on orders(created_at)\nKilled\n",
    );
  return { namespace, name, uid: job.metadata.uid as string };
}
