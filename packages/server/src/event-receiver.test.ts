import { afterEach, describe, expect, it } from "vitest";
import { type JobAdapterV1, z } from "@jobtasks/core";
import { EventReceiver } from "./event-receiver.js";
import { TaskIdSealer } from "./task-id.js";
import { TaskService } from "./task-service.js";
import { capturingLogger } from "./test-support/capturing-logger.js";

/** The event log's job label: one per job, however a delivery spells the job's ref. */

type PipelineRef = { project: string; pipelineId: number; jobsUpTo: number };

/** Pipelines whose deliveries name them as the body says, with GitLab's identity: no run, the project in lower case. */
const pipelines: JobAdapterV1<PipelineRef> = {
  specificationVersion: "v1",
  kind: "pipelines",
  tools: [],
  retentionMs: null,
  refSchema: z.object({ project: z.string(), pipelineId: z.int(), jobsUpTo: z.int().default(0) }),
  async doGetStatus() {
    return { status: "working", rawStatus: "running", message: "running" };
  },
  events: {
    doVerifyDelivery: async () => ({ verified: true }),
    doReadDelivery: async ({ body }) => ({
      event: "pipeline",
      jobs: [{ ref: JSON.parse(Buffer.from(body).toString()) }],
    }),
    jobIdentity: (ref) => ({ project: ref.project.toLowerCase(), pipelineId: ref.pipelineId }),
  },
};

let service: TaskService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe("EventReceiver's log of a delivery", () => {
  it("names a job by one label whatever the order of its ref's members, its spelling or the run it names", async () => {
    const { logger, entries } = capturingLogger();
    service = new TaskService({
      adapters: [{ name: "gitlab", adapter: pipelines }],
      sealer: new TaskIdSealer({ secret: "event-receiver-test-secret-0123456789abcdef" }),
      logger,
    });
    const receiver = new EventReceiver({ service, logger });
    const deliveries = [
      '{"project":"group/app","pipelineId":1001}',
      '{"pipelineId":1001,"project":"group/app"}',
      '{"project":"Group/App","pipelineId":1001,"jobsUpTo":50}',
      '{"project":"group/app","pipelineId":1002}',
    ];
    for (const body of deliveries) await receiver.receive("gitlab", { headers: {}, body: Buffer.from(body) });
    const labels = entries
      .filter((entry) => entry.msg === "upstream event received")
      .map((entry) => (entry as unknown as { jobs: Array<{ job: string }> }).jobs[0]!.job);
    expect(labels).toHaveLength(4);
    for (const label of labels) expect(label).toMatch(/^job-[0-9a-f]{12}$/);
    expect(new Set(labels.slice(0, 3)).size).toBe(1);
    expect(labels[3]).not.toBe(labels[0]);
  });
});
