import { afterEach, describe, expect, it } from "vitest";
import { kubernetes, nodeRunsKubernetesClient } from "@jobtasks/kubernetes";
import { FakeKubernetesApi, fakeToken } from "../adapters/kubernetes/src/test-support/fake-kubernetes-api.js";
import { testTools } from "../adapters/kubernetes/src/test-support/kubernetes-test-adapter.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * The Kubernetes adapter behind a real jobtasks server, used as an agent uses it: a training Job created
 * suspended and approved with tasks/update, its pods finishing with a result of exit codes and logs; a
 * migration cancelled with tasks/cancel. The cluster is the adapter's fake API server on 127.0.0.1, and
 * @kubernetes/client-node talks to it unchanged, so these run on Node 22 and 24 only.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const reason = nodeRunsKubernetesClient()
  ? ""
  : ` (skipped: @kubernetes/client-node 2.x needs Node >= 22.19, this is ${process.version})`;

async function serve(service: { snapshotCacheMs?: number } = {}) {
  const fake = await new FakeKubernetesApi().start();
  cleanup.add({ close: () => fake.close() });
  const adapter = kubernetes(
    {
      connection: { mode: "kubeconfig", kubeconfig: fake.kubeconfigPath },
      allowedNamespaces: ["ml", "batch"],
      tools: testTools,
    },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "cluster", adapter }], service }));
  return { fake, client: recordingClient(server.url) };
}

async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

describe.skipIf(reason !== "")(`Kubernetes Jobs through the server${reason}`, () => {
  it("a suspended training Job approved, then finished with its exit codes and the end of its log", async () => {
    const { fake, client } = await serve();
    const created = await client.callTool("train_model", { dataset: "clicks-2026-11", epochs: 5 });
    expect(created).toMatchObject({ resultType: "task" });
    const taskId = created["taskId"] as string;
    const [name] = [...fake.jobs.get("ml")!.keys()];
    expect(taskId).not.toContain(name!);

    const waiting = await client.get(taskId);
    expect(waiting["status"]).toBe("input_required");
    const [key] = Object.keys(waiting["inputRequests"]);
    expect(key).toBe(`start-${fake.job("ml", name!)!.metadata.uid}`);
    await client.update(taskId, { [key!]: { action: "accept", content: { approve: true } } });
    expect(fake.job("ml", name!)!.spec.suspend).toBe(false);

    fake.updateJob(
      "ml",
      name!,
      (job) => (job.status = { startTime: new Date().toISOString(), active: 2, ready: 2, succeeded: 0 }),
    );
    await eventually(async () =>
      expect((await client.get(taskId))["statusMessage"]).toMatch(/^running: 2 active \(2 ready\)/),
    );

    fake.addPod(
      "ml",
      name!,
      {
        metadata: { name: `${name}-0-abcde` },
        status: {
          phase: "Succeeded",
          containerStatuses: [
            {
              name: "job",
              image: "registry.example.com/ml/train:1.4",
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: "Completed" } },
            },
          ],
        },
      },
      "epoch 5/5 loss=0.183\nsaved model to s3://models/clicks\n",
    );
    fake.updateJob("ml", name!, (job) => {
      job.status = { ...job.status, active: 0, ready: 0, succeeded: 2, completionTime: "2026-12-01T10:00:00Z" };
      job.status.conditions = [{ type: "Complete", status: "True", lastTransitionTime: "2026-12-01T10:00:00Z" }];
    });
    const done = await eventually(async () => {
      const task = await client.get(taskId);
      expect(task["status"]).toBe("completed");
      return task;
    });
    expect(done["result"]["isError"]).toBe(false);
    expect(done["result"]["content"][0]["text"]).toContain("exit code 0 (Completed)");
    expect(done["result"]["content"][0]["text"]).toContain("saved model to s3://models/clicks");
    client.expectNoneContains([fakeToken, fake.url]);
  });

  it("a migration cancelled: working until the Job is gone, then cancelled", async () => {
    const { fake, client } = await serve();
    const created = await client.callTool("migrate_database", { target: "42" });
    const taskId = created["taskId"] as string;
    const [name] = [...fake.jobs.get("batch")!.keys()];
    fake.updateJob(
      "batch",
      name!,
      (job) => (job.status = { startTime: new Date().toISOString(), active: 1, ready: 1 }),
    );
    await eventually(async () => expect((await client.get(taskId))["statusMessage"]).toMatch(/^running/));
    await client.cancel(taskId);
    expect(fake.job("batch", name!)).toBeUndefined();
    await eventually(async () => expect((await client.get(taskId))["status"]).toBe("cancelled"));
  });

  it("shows a change the watch saw at once, however long the server caches snapshots", async () => {
    // A minute's cache: without the adapter telling the server of the change, tasks/get would answer the
    // cached "running" for a minute.
    const { fake, client } = await serve({ snapshotCacheMs: 60_000 });
    const created = await client.callTool("migrate_database", { target: "42" });
    const taskId = created["taskId"] as string;
    const [name] = [...fake.jobs.get("batch")!.keys()];
    fake.updateJob(
      "batch",
      name!,
      (job) => (job.status = { startTime: new Date().toISOString(), active: 1, ready: 1 }),
    );
    await eventually(async () => expect((await client.get(taskId))["statusMessage"]).toMatch(/^running/), 3000);
    const changedAt = Date.now();
    fake.updateJob(
      "batch",
      name!,
      (job) =>
        (job.status = {
          startTime: job.status.startTime,
          completionTime: new Date().toISOString(),
          succeeded: 1,
          conditions: [
            { type: "SuccessCriteriaMet", status: "True" },
            { type: "Complete", status: "True" },
          ],
        }),
    );
    await eventually(async () => expect((await client.get(taskId))["status"]).toBe("completed"), 3000);
    expect(Date.now() - changedAt).toBeLessThan(3000);
  });

  it("refuses arguments the tool's input schema does not allow with -32602, before anything reaches the cluster", async () => {
    const { fake, client } = await serve();
    const answer = await client.call("tools/call", {
      name: "migrate_database",
      arguments: { target: "42; drop table" },
    });
    expect(answer?.error?.code).toBe(-32602);
    expect(JSON.stringify(answer?.error)).toContain("target");
    expect(fake.requests).toEqual([]);
  });
});
