import { runAdapterConformance } from "@jobtasks/testkit";
import { MemoryJobTable, type MemoryJobState } from "./memory-jobs-api.js";
import { memoryJobs } from "./memory-jobs-adapter.js";
import type { MemoryJobRef } from "./memory-job-ref.js";

const apiKey = "memory-jobs-key-0123456789";
let table = new MemoryJobTable(2, apiKey);
let nextId = 1000;
const arrange = (state: MemoryJobState): MemoryJobRef => {
  const jobId = nextId++;
  table.put(jobId, state);
  return { jobId };
};

runAdapterConformance<MemoryJobRef>({
  name: "memory-jobs",
  createAdapter: () => memoryJobs({ pollsToFinish: 2, apiKey }, { table: (table = new MemoryJobTable(2, apiKey)) }),
  secrets: [apiKey],
  statuses: [
    { rawStatus: "running", expected: "working" },
    { rawStatus: "waiting_for_approval", expected: "input_required" },
    { rawStatus: "succeeded", expected: "completed", isError: false },
    { rawStatus: "rejected", expected: "completed", isError: true },
    { rawStatus: "cancelled", expected: "cancelled" },
  ],
  arrangeStatus: (rawStatus) => arrange(rawStatus as MemoryJobState),
  unknownRawStatus: "paused_for_maintenance",
  arrangeNotFound: () => ({ jobId: 404 }),
  arrangeRetryableFailure: () => {
    table.unavailable = true;
    return { jobId: 1 };
  },
  start: { tool: "run_job", input: {} },
  inputRequired: {
    arrange: () => arrange("waiting_for_approval"),
    response: { action: "accept", content: { approve: true } },
    verifyResponded: (ref) => table.stateOf(ref.jobId) === "running",
  },
  cancel: {
    arrange: () => arrange("running"),
    verifyCancelRequested: (ref) => table.stateOf(ref.jobId) === "cancelled",
  },
});
