import { runAdapterConformance } from "./run-adapter-conformance.js";
import { createFakeCi, fakeCiAdapter, type FakeCi } from "./test-support/fake-ci-adapter.js";

// The suite run against a small, correct in-memory adapter: every group registered must pass.
const token = "fake-ci-token-0123456789abcdef";
let ci: FakeCi = createFakeCi(token);

runAdapterConformance<{ runId: string }>({
  name: "fake CI",
  createAdapter() {
    ci = createFakeCi(token);
    return fakeCiAdapter({ ci, token });
  },
  secrets: [token],
  statuses: [
    { rawStatus: "pending", expected: "working" },
    { rawStatus: "running", expected: "working" },
    { rawStatus: "awaiting_input", expected: "input_required" },
    { rawStatus: "success", expected: "completed", isError: false },
    { rawStatus: "failure", expected: "completed", isError: true },
    { rawStatus: "expired", expected: "failed" },
    { rawStatus: "cancelled", expected: "cancelled" },
  ],
  arrangeStatus: (rawStatus) => ({ runId: ci.add(rawStatus) }),
  unknownRawStatus: "warming_up",
  arrangeNotFound: () => ({ runId: "run-404" }),
  arrangeRetryableFailure() {
    ci.setOutage(true);
    return { runId: ci.add("running") };
  },
  start: { tool: "fake_run", input: {} },
  inputRequired: {
    arrange: () => ({ runId: ci.add("awaiting_input") }),
    response: { action: "accept", content: { approve: true } },
    verifyResponded: (ref) => ci.jobs.get(ref.runId)?.answered === true,
  },
  cancel: {
    arrange: () => ({ runId: ci.add("running") }),
    verifyCancelRequested: (ref) => ci.jobs.get(ref.runId)?.cancelRequested === true,
  },
});
