import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { arrangeJob, fixture } from "./test-support/arrange-jobs.js";
import { FakeKubernetesApi } from "./test-support/fake-kubernetes-api.js";
import { createTestAdapter, describeWithClient, eventually } from "./test-support/kubernetes-test-adapter.js";

describeWithClient("what a status read tells about a Job", () => {
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

  it("says a pending Job waits for the scheduler, with the scheduler's message", async () => {
    const ref = arrangeJob(fake, "ml", "Pending");
    fake.updateJob("ml", ref.name, (job) => Object.assign(job.status, { active: 1, ready: 0 }));
    fake.addPod("ml", ref.name, fixture("pod-unschedulable.json"));
    expect(await read(ref)).toMatchObject({
      status: "working",
      rawStatus: "Running",
      message: expect.stringContaining("FailedScheduling: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu"),
    });
  });

  it("says which image cannot be pulled", async () => {
    const ref = arrangeJob(fake, "ml", "Pending");
    fake.addPod("ml", ref.name, fixture("pod-image-pull-backoff.json"));
    expect((await read(ref)).message).toContain("ImagePullBackOff: image registry.example.com/ml/train:1.4");
  });

  it("says why no pod was created, from the Job's warning events", async () => {
    const ref = arrangeJob(fake, "batch", "Pending");
    fake.addEvent("batch", {
      type: "Warning",
      reason: "FailedCreate",
      message: 'Error creating: pods "x" is forbidden: exceeded quota: compute, requested: cpu=4, limited: cpu=2',
      involvedObject: { kind: "Job", uid: ref.uid },
      lastTimestamp: new Date().toISOString(),
    });
    expect((await read(ref)).message).toContain('FailedCreate: Error creating: pods "x" is forbidden: exceeded quota');
  });

  it("reads the pods of a pending Job again only after podReadIntervalMs, or when the Job changed", async () => {
    await adapter.close?.();
    adapter = createTestAdapter(fake, { podReadIntervalMs: 60_000 });
    const ref = arrangeJob(fake, "ml", "Pending");
    fake.addPod("ml", ref.name, fixture("pod-image-pull-backoff.json"));
    const podReads = () => fake.count((request) => request.path.endsWith("/pods"));
    for (let poll = 0; poll < 5; poll += 1) await read(ref);
    expect(podReads()).toBe(1);
    fake.updateJob("ml", ref.name, (job) => (job.status.ready = 0));
    await eventually(async () => {
      await read(ref);
      expect(podReads()).toBe(2);
    });
  });

  it("shows a running Job's counts and an Indexed Job's completed indexes as progress, without reading pods", async () => {
    const ref = arrangeJob(fake, "ml", "Running");
    fake.updateJob("ml", ref.name, (job) => {
      job.spec.completions = 8;
      job.spec.completionMode = "Indexed";
      job.status = { startTime: job.status.startTime, active: 2, ready: 2, succeeded: 3, completedIndexes: "0-2" };
    });
    await eventually(async () =>
      expect(await read(ref)).toMatchObject({
        status: "working",
        message: "running: 2 active (2 ready), 3/8 succeeded, indexes 0-2 done",
        progress: { progress: 3, total: 8 },
      }),
    );
    expect(fake.count((request) => request.path.includes("/pods"))).toBe(0);
  });

  it("ends a complete Job with its exit codes and the end of the last pod's log", async () => {
    const ref = arrangeJob(fake, "batch", "Complete");
    const snapshot = await read(ref);
    expect(snapshot).toMatchObject({
      status: "completed",
      rawStatus: "Complete",
      updatedAt: "2026-12-01T09:03:11.000Z",
    });
    expect(snapshot.result?.isError).toBe(false);
    expect(snapshot.result?.structuredContent).toMatchObject({
      outcome: "succeeded",
      succeeded: 1,
      containers: [{ pod: "migrate-database-q8z7w-j2k4d", container: "job", exitCode: 0, reason: "Completed" }],
      logs: [{ pod: "migrate-database-q8z7w-j2k4d", text: "migrating 0041\nmigrating 0042\nschema at 0042\n" }],
    });
  });

  it("ends a failed Job with isError, the reason, OOMKilled, the termination message and the log's end", async () => {
    const ref = arrangeJob(fake, "batch", "Failed");
    const snapshot = await read(ref);
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.isError).toBe(true);
    expect(snapshot.result?.structuredContent).toMatchObject({
      outcome: "failed",
      reason: "BackoffLimitExceeded",
      oomKilled: true,
      containers: [
        {
          exitCode: 137,
          reason: "OOMKilled",
          message: "migration 0042_add_index: out of memory while building the index",
        },
      ],
    });
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text).toContain("the Job failed (BackoffLimitExceeded): Job has reached the specified backoff limit");
    expect(text).toContain("exit code 137 (OOMKilled): migration 0042_add_index");
    expect(text).toContain("building index on orders(created_at)\nKilled");
  });

  it("bounds the logs in lines per pod, pods and bytes", async () => {
    await adapter.close?.();
    adapter = createTestAdapter(fake, { logs: { maxLinesPerPod: 2, maxPods: 2, maxBytes: 30 } });
    const ref = arrangeJob(fake, "batch", "Failed");
    for (let pod = 0; pod < 3; pod += 1)
      fake.addPod(
        "batch",
        ref.name,
        { ...fixture("pod-oom-killed.json"), metadata: { name: `extra-${pod}` } },
        "one\ntwo\nthree\nfour\n",
      );
    const logs = (await read(ref)).result?.structuredContent?.["logs"] as Array<{ text: string; note?: string }>;
    expect(logs.length).toBeLessThanOrEqual(2);
    expect(logs[0]!.text).toBe("three\nfour\n");
    expect(logs.reduce((total, tail) => total + Buffer.byteLength(tail.text), 0)).toBeLessThanOrEqual(30);
    expect(fake.count((request) => request.path.endsWith("/log"))).toBeLessThanOrEqual(2);
  });

  it("keeps the last lines of a log longer than the byte budget, not the first lines of its tail", async () => {
    await adapter.close?.();
    adapter = createTestAdapter(fake, { logs: { maxLinesPerPod: 10, maxPods: 1, maxBytes: 40 } });
    const ref = arrangeJob(fake, "batch", "Failed");
    const log = `${Array.from({ length: 8 }, (_, line) => `step ${line} of the migration ok`).join("\n")}\nFATAL: disk full\n`;
    fake.addPod("batch", ref.name, { ...fixture("pod-oom-killed.json"), metadata: { name: "last-pod" } }, log);
    const logs = (await read(ref)).result?.structuredContent?.["logs"] as Array<{ text: string; note?: string }>;
    expect(logs[0]!.text).toContain("FATAL: disk full\n");
    expect(Buffer.byteLength(logs[0]!.text)).toBeLessThanOrEqual(40);
    expect(logs[0]!.note).toContain("cut");
  });

  it("keeps the end of a last line longer than the byte budget, rather than nothing", async () => {
    await adapter.close?.();
    adapter = createTestAdapter(fake, { logs: { maxLinesPerPod: 10, maxPods: 1, maxBytes: 40 } });
    const ref = arrangeJob(fake, "batch", "Failed");
    const log = `step 1 ok\nFATAL: ${"disk full ".repeat(10)}\n`;
    fake.addPod("batch", ref.name, { ...fixture("pod-oom-killed.json"), metadata: { name: "last-pod" } }, log);
    const logs = (await read(ref)).result?.structuredContent?.["logs"] as Array<{ text: string; note?: string }>;
    expect(logs[0]!.text).toBe(`${"disk full ".repeat(10)}\n`.slice(-40));
    expect(logs[0]!.note).toContain("cut");
  });

  it("cuts a log to the byte budget between characters, never inside one", async () => {
    await adapter.close?.();
    // 601 bytes of log: the last 402 start inside an "é".
    adapter = createTestAdapter(fake, { logs: { maxLinesPerPod: 10, maxPods: 1, maxBytes: 402 } });
    const ref = arrangeJob(fake, "batch", "Failed");
    fake.addPod(
      "batch",
      ref.name,
      { ...fixture("pod-oom-killed.json"), metadata: { name: "last-pod" } },
      "é".repeat(300),
    );
    const logs = (await read(ref)).result?.structuredContent?.["logs"] as Array<{ text: string; note?: string }>;
    expect(logs[0]!.text).toBe(`${"é".repeat(200)}\n`);
  });

  it("answers a Job the cluster deleted after it finished (its TTL) as expired, unless its end was read before", async () => {
    const seen = arrangeJob(fake, "batch", "Complete");
    const unseen = arrangeJob(fake, "batch", "Complete");
    const end = await read(seen);
    const eventsBefore = adapter.raw.watchStatistics().events;
    fake.removeJob("batch", seen.name);
    fake.removeJob("batch", unseen.name);
    await eventually(() => expect(adapter.raw.watchStatistics().events).toBe(eventsBefore + 2));
    await expect(read(unseen)).rejects.toThrow(
      /finished and the cluster has deleted it since \(ttlSecondsAfterFinished\)/,
    );
    expect(await read(seen)).toEqual(end);
  });

  it("follows a Job by uid: a new Job under the same name is another Job", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    fake.removeJob("batch", ref.name);
    fake.addJob("batch", { metadata: { name: ref.name }, spec: {}, status: { active: 1 } });
    await eventually(async () => {
      await expect(read(ref)).rejects.toThrow(/no longer exists/);
    });
  });

  it("watch_job follows a Job started elsewhere, and refuses a name that does not exist or a namespace not allowed", async () => {
    const cronRun = arrangeJob(fake, "batch", "Running");
    const watchJob = adapter.tools.find((tool) => tool.name === "watch_job")!;
    const started = await watchJob.doStart({ namespace: "batch", name: cronRun.name }, createTestContext());
    expect(started.ref).toEqual(cronRun);
    await expect(watchJob.doStart({ namespace: "batch", name: "nightly-404" }, createTestContext())).rejects.toThrow(
      "Invalid arguments: name: no Job of this name in namespace batch",
    );
    expect(watchJob.inputSchema.safeParse({ namespace: "kube-system", name: "x" }).success).toBe(false);
  });
});
