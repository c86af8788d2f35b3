import { JobNotFoundError, UpstreamError, type JobAdapterV1, z } from "@jobtasks/core";
import { runAdapterConformance } from "../run-adapter-conformance.js";
import type { ConformanceHarness } from "../conformance-types.js";
import { createFakeCi, fakeCiAdapter, type FakeCi } from "../test-support/fake-ci-adapter.js";

/**
 * Run by run-adapter-conformance-detects-faults.test.ts in a separate vitest process: each harness below
 * wraps the correct fake CI adapter with one fault, and that test checks the suite fails exactly there.
 */

type Ref = { runId: string };
const token = "fixture-token-abcdef123456";

function harnessWith(
  name: string,
  breakAdapter: (adapter: JobAdapterV1<Ref>) => JobAdapterV1<Ref>,
  extra: Partial<ConformanceHarness<Ref>> | ((currentCi: () => FakeCi) => Partial<ConformanceHarness<Ref>>) = {},
): void {
  let ci: FakeCi = createFakeCi(token);
  runAdapterConformance<Ref>({
    name,
    createAdapter() {
      ci = createFakeCi(token);
      return breakAdapter(fakeCiAdapter({ ci, token }));
    },
    secrets: [token],
    statuses: [
      { rawStatus: "running", expected: "working" },
      { rawStatus: "success", expected: "completed", isError: false },
      { rawStatus: "failure", expected: "completed", isError: true },
    ],
    arrangeStatus: (rawStatus) => ({ runId: ci.add(rawStatus) }),
    unknownRawStatus: "warming_up",
    arrangeNotFound: () => ({ runId: "run-404" }),
    arrangeRetryableFailure() {
      ci.setOutage(true);
      return { runId: ci.add("running") };
    },
    inputRequired: {
      arrange: () => ({ runId: ci.add("awaiting_input") }),
      response: { action: "accept", content: { approve: true } },
      verifyResponded: (ref) => ci.jobs.get(ref.runId)?.answered === true,
    },
    cancel: {
      arrange: () => ({ runId: ci.add("running") }),
      verifyCancelRequested: (ref) => ci.jobs.get(ref.runId)?.cancelRequested === true,
    },
    ...(typeof extra === "function" ? extra(() => ci) : extra),
  });
}

harnessWith("leaks its token in errors", (adapter) => ({
  ...adapter,
  async doGetStatus(ref, context) {
    try {
      return await adapter.doGetStatus(ref, context);
    } catch (error) {
      throw new UpstreamError("upstream failed", { isRetryable: true, cause: new Error(`request with Bearer ${token} failed`) });
    }
  },
}));

harnessWith("ends on an unknown status", (adapter) => ({
  ...adapter,
  async doGetStatus(ref, context) {
    const snapshot = await adapter.doGetStatus(ref, context);
    return snapshot.rawStatus === "warming_up" ? { ...snapshot, status: "completed", result: { content: [] } } : snapshot;
  },
}));

harnessWith("ignores the abort signal", (adapter) => ({
  ...adapter,
  doGetStatus: (ref, context) => adapter.doGetStatus(ref, { ...context, signal: new AbortController().signal }),
}));

harnessWith("throws the wrong errors", (adapter) => ({
  ...adapter,
  async doGetStatus(ref, context) {
    try {
      return await adapter.doGetStatus(ref, context);
    } catch (error) {
      if (error instanceof JobNotFoundError) throw new Error("404");
      throw new UpstreamError("503", { isRetryable: false });
    }
  },
}));

harnessWith("has doRespond and doCancel but no scenarios", (adapter) => adapter, { inputRequired: undefined, cancel: undefined });

harnessWith("has a malformed tool and input request", (adapter) => ({
  ...adapter,
  tools: adapter.tools.map((tool) => ({ ...tool, description: "" })),
  async doGetStatus(ref, context) {
    const snapshot = await adapter.doGetStatus(ref, context);
    if (snapshot.status !== "input_required") return snapshot;
    return { ...snapshot, inputRequests: { "gate-1": { method: "elicitation/create", params: { mode: "form", message: "" } } as never } };
  },
}));

harnessWith("logs its token", (adapter) => ({
  ...adapter,
  async doGetStatus(ref, context) {
    context.logger.debug({ authorization: `Bearer ${token}` }, "reading a run");
    return adapter.doGetStatus(ref, context);
  },
}), { statuses: [{ rawStatus: "running", expected: "working" }] });

// Its own refSchema refuses the references it starts ("run-1" is no "job-<n>"): the server would answer
// every new task id "Task not found".
harnessWith(
  "starts jobs whose references its refSchema refuses",
  (adapter) => ({ ...adapter, refSchema: z.strictObject({ runId: z.string().regex(/^job-\d+$/) }) }),
  { start: { tool: "fake_run", input: {} } },
);

// Not broken: the same leaks, with the token declared. The suite calls the adapter as the server does,
// through withSecretRedaction, so nothing reaches what the tests see.
harnessWith("logs and throws its token, declared in secrets", (adapter) => ({
  ...adapter,
  secrets: () => [token],
  async doGetStatus(ref, context) {
    context.logger.debug({ authorization: `Bearer ${token}` }, "reading a run");
    try {
      return { ...(await adapter.doGetStatus(ref, context)), message: `read with ${token}` };
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (error instanceof JobNotFoundError) throw new JobNotFoundError(`run not found for ${token}`);
      throw new UpstreamError("upstream failed", { isRetryable: true, cause: new Error(`request with Bearer ${token} failed`) });
    }
  },
}));

// A dismissed form leaves the gate waiting, yet the adapter says every answer settled its question: the
// server would ignore the real answer that follows.
harnessWith("says a dismissed form settled its question", (adapter) => ({
  ...adapter,
  async doRespond(ref, responses, context) {
    await adapter.doRespond?.(ref, responses, context);
    return { leftOpen: [] };
  },
}));

// A decline keeps the gate waiting (as a GitLab manual job does), and the adapter says nothing of it.
harnessWith(
  "keeps a declined gate waiting and reports nothing left open",
  (adapter) => ({
    ...adapter,
    async doRespond(ref, responses, context) {
      const kept = Object.fromEntries(Object.entries(responses).filter(([, response]) => response.action !== "decline"));
      await adapter.doRespond?.(ref, kept, context);
    },
  }),
  (currentCi) => ({
    answersLeavingOpen: [
      { name: "a declined gate", arrange: () => ({ runId: currentCi().add("awaiting_input") }), response: { action: "decline" } },
    ],
  }),
);
