import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KubernetesApi } from "./kubernetes-api.js";
import { NamespaceJobWatch } from "./namespace-job-watch.js";
import { arrangeJob } from "./test-support/arrange-jobs.js";
import { FakeKubernetesApi } from "./test-support/fake-kubernetes-api.js";
import { createTestAdapter, describeWithClient, eventually } from "./test-support/kubernetes-test-adapter.js";

describeWithClient("one list+watch per namespace", () => {
  let fake: FakeKubernetesApi;
  let adapter: ReturnType<typeof createTestAdapter>;
  beforeEach(async () => {
    fake = await new FakeKubernetesApi().start();
    fake.bookmarkIntervalMs = 100;
    adapter = createTestAdapter(fake);
  });
  afterEach(async () => {
    await adapter.close?.();
    await fake.close();
  });
  const read = (ref: Parameters<typeof adapter.doGetStatus>[0]) => adapter.doGetStatus(ref, createTestContext());
  const jobRequests = () => fake.count((request) => !request.watch && request.path.includes("/jobs"));
  const watchRequests = () => fake.count((request) => request.watch);

  it("answers many followed Jobs' reads from one watch, with no request per Job", async () => {
    const refs = Array.from({ length: 50 }, () => arrangeJob(fake, "batch", "Running"));
    await read(refs[0]!);
    const before = fake.requests.length;
    for (let round = 0; round < 5; round += 1) for (const ref of refs) await read(ref);
    expect(fake.requests.length).toBe(before);
    expect(jobRequests()).toBe(1); // the first list
    expect(watchRequests()).toBe(1);
    expect(fake.openWatches).toBe(1);
  });

  it("shows a change the watch delivers at the next read", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    expect((await read(ref)).rawStatus).toBe("Running");
    fake.updateJob("batch", ref.name, (job) => (job.status.succeeded = 1));
    await eventually(async () => expect((await read(ref)).message).toContain("1/1 succeeded"));
  });

  it("lists again after a 410 Gone event, and shows what changed meanwhile", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    await read(ref);
    fake.expireWatches();
    fake.updateJob("batch", ref.name, (job) => (job.status.succeeded = 1));
    await eventually(async () => expect((await read(ref)).message).toContain("1/1 succeeded"));
    expect(adapter.raw.watchStatistics()).toMatchObject({ lists: 2, relistsAfterGone: 1 });
  });

  it("lists again when a resumed watch is answered HTTP 410", async () => {
    fake.goneAs = "status";
    const ref = arrangeJob(fake, "batch", "Running");
    await read(ref);
    // Gone while nobody watched, and the history compacted past the version the watch saw last.
    fake.dropWatches();
    fake.updateJob("batch", ref.name, (job) => (job.status.succeeded = 1));
    fake.compact();
    await eventually(async () => expect((await read(ref)).message).toContain("1/1 succeeded"));
    await eventually(() => expect(adapter.raw.watchStatistics()).toMatchObject({ relistsAfterGone: 1, lists: 2 }));
  });

  it("resumes a dropped watch from its last resourceVersion without listing again", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    await read(ref);
    fake.dropWatches();
    fake.updateJob("batch", ref.name, (job) => (job.status.succeeded = 1));
    await eventually(async () => expect((await read(ref)).message).toContain("1/1 succeeded"));
    await eventually(() => expect(fake.openWatches).toBe(1));
    expect(adapter.raw.watchStatistics().lists).toBe(1);
    expect(watchRequests()).toBeGreaterThanOrEqual(2);
    const resumed = fake.requests.filter((request) => request.watch).at(-1)!;
    expect(resumed.query.get("resourceVersion")).not.toBe("");
    expect(resumed.query.get("allowWatchBookmarks")).toBe("true");
  });

  it("reads Jobs directly while the watch is out of sync, backs off, and never shows a Job going backwards", async () => {
    const ref = arrangeJob(fake, "batch", "Running");
    fake.updateJob("batch", ref.name, (job) => Object.assign(job.status, { succeeded: 0 }));
    await read(ref);
    // The watch fails and cannot come back: the API answers 503 to the watch and the list.
    fake.failingNamespaces.add("batch");
    fake.dropWatches();
    await eventually(() => expect(adapter.raw.watchStatistics().failures).toBeGreaterThan(0));
    fake.failingNamespaces.delete("batch");
    fake.forbidden.add("batch watch jobs");
    fake.updateJob("batch", ref.name, (job) => (job.status.succeeded = 1));
    // Out of sync: the read asks the API, and gets the newer state.
    await eventually(async () => expect((await read(ref)).message).toContain("1/1 succeeded"));
    expect(fake.count((request) => request.path.endsWith(`/jobs/${ref.name}`))).toBeGreaterThan(0);
    fake.forbidden.delete("batch watch jobs");
    // Back in sync: reads come from the watch again, and the state stays at least as new.
    await eventually(() => expect(fake.openWatches).toBe(1), 5000);
    // The fake counts the watch open as its request arrives; the adapter is in sync only once its client
    // has the answer, a moment later, and a read in between still asks the API.
    const directGets = () => fake.count((request) => request.path.endsWith(`/jobs/${ref.name}`));
    await eventually(async () => {
      const before = directGets();
      await read(ref);
      expect(directGets()).toBe(before);
    }, 5000);
    const gets = directGets();
    for (let poll = 0; poll < 10; poll += 1) expect((await read(ref)).message).toContain("1/1 succeeded");
    expect(directGets()).toBe(gets);
  });

  it("keeps one watch per namespace, started by the first Job there", async () => {
    await read(arrangeJob(fake, "batch", "Running"));
    await read(arrangeJob(fake, "ml", "Running"));
    await read(arrangeJob(fake, "ml", "Running"));
    expect(adapter.raw.watchStatistics()).toMatchObject({ namespaces: 2, watchRequests: 2 });
  });
});

describe("a Job's copy in the watch", () => {
  const job = (resourceVersion: string, active: number) => ({
    metadata: { namespace: "batch", name: "etl-x7k2p", uid: "uid-1", resourceVersion },
    status: { active },
  });

  it("never moves back to an older resourceVersion, whichever of the watch and a direct read brought it", () => {
    // Never started: offer() is how a create's or a direct read's answer reaches it, possibly late.
    const watch = new NamespaceJobWatch({} as KubernetesApi, "batch", {
      backoffMs: 1,
      maxBackoffMs: 1,
      timeoutSeconds: 1,
    });
    watch.offer(job("1002", 1));
    watch.offer(job("1001", 0));
    expect(watch.job("etl-x7k2p")?.metadata?.resourceVersion).toBe("1002");
    watch.offer(job("1003", 0));
    expect(watch.job("etl-x7k2p")?.status?.active).toBe(0);
  });
});
