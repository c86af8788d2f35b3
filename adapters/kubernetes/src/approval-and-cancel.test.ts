import { settledAnswerKeys } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { arrangeJob } from "./test-support/arrange-jobs.js";
import { FakeKubernetesApi } from "./test-support/fake-kubernetes-api.js";
import { createTestAdapter, describeWithClient, eventually } from "./test-support/kubernetes-test-adapter.js";

describeWithClient("suspended starts and cancels", () => {
  let fake: FakeKubernetesApi;
  let adapter: ReturnType<typeof createTestAdapter>;
  beforeEach(async () => {
    fake = await new FakeKubernetesApi().start();
    adapter = createTestAdapter(fake);
  });
  afterEach(async () => {
    await adapter.close?.();
    await fake.close();
  });
  const read = (ref: Parameters<typeof adapter.doGetStatus>[0]) => adapter.doGetStatus(ref, createTestContext());
  const startTraining = async () => {
    const tool = adapter.tools.find((candidate) => candidate.name === "train_model")!;
    return (await tool.doStart(tool.inputSchema.parse({ dataset: "imagenet-mini" }), createTestContext())).ref;
  };

  it("creates an approval tool's Job suspended and asks, marking the question as an approval", async () => {
    const ref = await startTraining();
    expect(fake.job(ref.namespace, ref.name)).toMatchObject({
      spec: { suspend: true },
      metadata: { annotations: { "jobtasks.io/approval": "pending" }, labels: { "jobtasks.io/tool": "train_model" } },
    });
    const snapshot = await read(ref);
    const key = `start-${ref.uid}`;
    expect(snapshot).toMatchObject({ status: "input_required", approvalKeys: [key] });
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual([key]);
    expect(JSON.stringify(snapshot.inputRequests)).toContain("Start training on 4 GPUs?");
  });

  it("resumes the Job on an approval, and does not ask again", async () => {
    const ref = await startTraining();
    await read(ref);
    await adapter.doRespond!(
      ref,
      { [`start-${ref.uid}`]: { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(fake.job(ref.namespace, ref.name)).toMatchObject({
      spec: { suspend: false },
      metadata: { annotations: { "jobtasks.io/approval": "approved" } },
    });
    await eventually(async () => expect(await read(ref)).toMatchObject({ status: "working", rawStatus: "Pending" }));
  });

  it("deletes the Job on a rejection (or a decline) and ends completed with isError, also once it is gone", async () => {
    for (const response of [
      { action: "accept" as const, content: { approve: false } },
      { action: "decline" as const },
    ]) {
      const ref = await startTraining();
      await read(ref);
      const key = `start-${ref.uid}`;
      const outcome = await adapter.doRespond!(ref, { [key]: response }, createTestContext());
      expect(settledAnswerKeys({ [key]: response }, outcome ?? undefined)).toEqual([key]);
      expect(fake.job(ref.namespace, ref.name)).toBeUndefined();
      const deletion = fake.requests.find((request) => request.method === "DELETE" && request.path.endsWith(ref.name));
      expect(deletion?.body).toMatchObject({ propagationPolicy: "Background", preconditions: { uid: ref.uid } });
      const snapshot = await read(ref);
      expect(snapshot).toMatchObject({ status: "completed", rawStatus: "Rejected", result: { isError: true } });
      expect((snapshot.result?.content[0] as { text: string }).text).toContain("the start was rejected");
    }
  });

  it("reads a rejection from the Job's last state on another replica that saw it deleted", async () => {
    const ref = await startTraining();
    const replica = createTestAdapter(fake);
    await read(ref);
    await replica.doGetStatus(ref, createTestContext());
    await adapter.doRespond!(ref, { [`start-${ref.uid}`]: { action: "decline" } }, createTestContext());
    await eventually(async () =>
      expect(await replica.doGetStatus(ref, createTestContext())).toMatchObject({
        status: "completed",
        result: { isError: true },
      }),
    );
    await replica.close?.();
  });

  it("refuses an answer it cannot act on before changing anything", async () => {
    const ref = await startTraining();
    await read(ref);
    await expect(
      adapter.doRespond!(
        ref,
        { [`start-${ref.uid}`]: { action: "accept", content: { approve: "yes" } } },
        createTestContext(),
      ),
    ).rejects.toThrow(`Invalid arguments: start-${ref.uid}.approve: must be true or false`);
    expect(fake.count((request) => request.method !== "GET")).toBe(1);
  });

  it("stays working with 'cancel requested' until the Job is gone, then ends cancelled, on every replica watching", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    const replica = createTestAdapter(fake);
    await read(ref);
    await replica.doGetStatus(ref, createTestContext());
    await adapter.doCancel!(ref, createTestContext());
    // Marked first (so the Job's last state says who deleted it), then deleted with its pods.
    const [mark, deletion] = fake.requests.filter(
      (request) => request.method === "PATCH" || request.method === "DELETE",
    );
    expect(mark).toMatchObject({ method: "PATCH" });
    expect(JSON.stringify(mark!.body)).toContain("jobtasks.io/cancel-requested");
    expect(deletion).toMatchObject({ method: "DELETE", body: { propagationPolicy: "Background" } });
    await eventually(async () =>
      expect(await read(ref)).toMatchObject({ status: "cancelled", rawStatus: "Cancelled" }),
    );
    await eventually(async () =>
      expect(await replica.doGetStatus(ref, createTestContext())).toMatchObject({ status: "cancelled" }),
    );
    await replica.close?.();
  });

  it("ends a Job that finished before its cancel arrived as it finished, not cancelled", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    await read(ref);
    fake.updateJob("batch", ref.name, (job) => {
      job.status = { ...job.status, active: 0, succeeded: 1, completionTime: "2026-12-01T09:03:11Z" };
      job.status.conditions = [{ type: "Complete", status: "True" }];
    });
    const events = adapter.raw.watchStatistics().events;
    await eventually(() => expect(adapter.raw.watchStatistics().events).toBeGreaterThan(events));
    await adapter.doCancel!(ref, createTestContext());
    await eventually(async () =>
      expect(await read(ref)).toMatchObject({ status: "completed", rawStatus: "Complete", result: { isError: false } }),
    );
  });

  it("reports a cancel as requested while the Job still has active pods", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    await read(ref);
    fake.forbidden.add("batch delete jobs");
    await expect(adapter.doCancel!(ref, createTestContext())).rejects.toThrow(
      /cannot delete jobs in namespace batch \(403 Forbidden\)/,
    );
    await eventually(async () =>
      expect(await read(ref)).toMatchObject({
        status: "working",
        rawStatus: "CancelRequested",
        message: expect.stringContaining("cancel requested"),
      }),
    );
  });

  it("finds a Job whose create got no answer by its start label, instead of creating another", async () => {
    fake.loseNextCreateAnswer = true;
    const tool = adapter.tools.find((candidate) => candidate.name === "migrate_database")!;
    const { ref } = await tool.doStart({ target: "42" }, createTestContext());
    expect(fake.count((request) => request.method === "POST")).toBe(1);
    expect(fake.job("batch", ref.name)?.metadata.uid).toBe(ref.uid);
  });
});
