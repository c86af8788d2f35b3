import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import type { AnyJobAdapter } from "@jobtasks/core";
import { githubActions } from "@jobtasks/github-actions";
import { gitlabCi } from "@jobtasks/gitlab-ci";
import { restAdapter } from "@jobtasks/rest";
import { readerDefaults } from "@jobtasks/server";
import { startFakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { fakeOwner, fakeRepo, startFakeGithub } from "./support/fake-github-api.js";
import {
  startFaultyUpstream,
  type FaultyUpstream,
  type HealthyAnswer,
  type Outage,
} from "./support/faulty-upstream.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient, type RecordingClient } from "./support/recording-client.js";

/**
 * The server's reader is the only retry loop of a status read: an adapter classifies a failure and lets it
 * go. Every adapter with its production retry settings, behind a server with its production quick retries
 * (readerDefaults: 2 retries, 250 ms then 500 ms, jittered), during a lasting outage of its first status
 * request: each tasks/get answers "working" within 5 s and costs at most 3 upstream requests (one per
 * attempt of the reader).
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const outages: Outage[] = ["503", "dropped connection"];
const maxRequestsPerGet = 1 + readerDefaults.immediateRetries;
const maxMsPerGet = 5_000;

async function serve(adapter: AnyJobAdapter): Promise<RecordingClient> {
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "upstream", adapter }],
      // The production reader, except the cache: each tasks/get below must reach the upstream.
      service: {
        snapshotCacheMs: 0,
        immediateRetries: readerDefaults.immediateRetries,
        immediateRetryDelayMs: readerDefaults.immediateRetryDelayMs,
      },
    }),
  );
  return recordingClient(server.url);
}

/** Start the outage, then poll the task a few times: each poll's upstream requests and time. */
async function pollDuringOutage(client: RecordingClient, upstream: FaultyUpstream, taskId: string, outage: Outage) {
  upstream.outage = outage;
  const polls = [];
  for (let poll = 0; poll < 2; poll++) {
    const before = upstream.requests.length;
    const startedAt = performance.now();
    const task = await client.get(taskId);
    polls.push({
      status: task["status"],
      message: String(task["statusMessage"]),
      requests: upstream.requests.length - before,
      ms: performance.now() - startedAt,
    });
  }
  return polls;
}

function expectWithinTarget(polls: Awaited<ReturnType<typeof pollDuringOutage>>): void {
  for (const poll of polls) {
    expect(poll.status).toBe("working");
    expect(poll.message).toMatch(/Upstream unavailable since/);
    expect(poll.requests).toBeGreaterThanOrEqual(1);
    expect(poll.requests).toBeLessThanOrEqual(maxRequestsPerGet);
    expect(poll.ms).toBeLessThan(maxMsPerGet);
  }
}

describe("github-actions: one owner for status-read retries", () => {
  for (const outage of outages) {
    it(`answers each tasks/get within 5 s and 3 requests during a lasting ${outage}`, async () => {
      const github = cleanup.add(await startFakeGithub());
      const runId = 9_182_736_455;
      const createdAt = "2026-11-20T10:00:00Z";
      github.runs.set(runId, {
        id: runId,
        name: "CI",
        path: ".github/workflows/ci.yml",
        headSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
        headBranch: "main",
        event: "push",
        createdAt,
        attempts: [
          {
            status: "queued",
            conclusion: null,
            updatedAt: createdAt,
            runStartedAt: createdAt,
            jobs: [],
            pendingDeployments: [],
          },
        ],
        reviews: [],
        annotations: new Map(),
        artifacts: [],
      });
      const upstream = cleanup.add(await startFaultyUpstream({ forwardTo: github.url }));
      // Production settings: requestRetries and maxRateLimitWaitMs at their defaults.
      const adapter = githubActions(
        {
          token: "ghp_StatusReadRetriesToken0123456789",
          baseUrl: upstream.url,
          repositories: [`${fakeOwner}/${fakeRepo}`],
        },
        {},
      );
      const client = await serve(adapter);
      const watched = await client.callTool("watch_run", { runId });
      expect(watched["status"]).toBe("working");
      expectWithinTarget(await pollDuringOutage(client, upstream, watched["taskId"], outage));
    });
  }
});

describe("aws-batch: one owner for status-read retries", () => {
  for (const outage of outages) {
    it(`answers each tasks/get within 5 s and 3 requests during a lasting ${outage}`, async () => {
      const batch = cleanup.add(await startFakeAwsBatch());
      const upstream = cleanup.add(await startFaultyUpstream({ forwardTo: batch.url }));
      // Production settings: retry at its default (5 attempts, 200 ms base).
      const adapter = awsBatch(
        {
          region: "us-east-1",
          endpoint: upstream.url,
          credentials: {
            accessKeyId: "AKIASTATUSREADTEST01",
            secretAccessKey: "status/read/retries/secret/0123456789",
          },
        },
        {},
      );
      cleanup.add({ close: () => adapter.close!() });
      const client = await serve(adapter);
      const job = batch.addJob({ jobName: "nightly-etl", status: "RUNNING", startedAt: Date.now() - 60_000 });
      const watched = await client.callTool("watch_job", { jobId: job.jobId });
      expect(watched["status"]).toBe("working");
      expectWithinTarget(await pollDuringOutage(client, upstream, watched["taskId"], outage));
    });
  }
});

describe("gitlab-ci: one owner for status-read retries", () => {
  const project = "acme/shop";
  const pipelinePath = `/api/v4/projects/${encodeURIComponent(project)}/pipelines/500001`;
  const answer: HealthyAnswer = (method, path) =>
    method === "GET" && path === pipelinePath
      ? {
          status: 200,
          body: {
            id: 500_001,
            status: "running",
            ref: "main",
            sha: "6dcb09b5",
            web_url: "https://gitlab.example/acme/shop/-/pipelines/500001",
            updated_at: "2026-11-30T10:00:00.000Z",
          },
        }
      : method === "GET" && path.startsWith(`${pipelinePath}/jobs?`)
        ? { status: 200, body: [{ id: 7_710_011, name: "rspec", stage: "test", status: "running" }] }
        : { status: 404, body: { message: "404 Not Found" } };

  for (const outage of outages) {
    it(`answers each tasks/get within 5 s and 3 requests during a lasting ${outage}`, async () => {
      const upstream = cleanup.add(await startFaultyUpstream({ answer }));
      const adapter = gitlabCi(
        { token: "glpat-StatusReadRetries0123", baseUrl: `${upstream.url}/api/v4`, projects: [project] },
        {},
      );
      const client = await serve(adapter);
      const watched = await client.callTool("watch_pipeline", { project, pipelineId: 500_001 });
      expect(watched["status"]).toBe("working");
      expectWithinTarget(await pollDuringOutage(client, upstream, watched["taskId"], outage));
    });
  }
});

describe("rest: one owner for status-read retries", () => {
  const answer: HealthyAnswer = (method, path) => {
    if (method === "POST" && path === "/api/jobs") return { status: 201, body: { id: "j-1" } };
    if (method === "GET" && path === "/api/jobs/j-1") return { status: 200, body: { state: "running" } };
    return { status: 404, body: { message: "not found" } };
  };

  for (const outage of outages) {
    it(`answers each tasks/get within 5 s and 3 requests during a lasting ${outage}`, async () => {
      const upstream = cleanup.add(await startFaultyUpstream({ answer }));
      const adapter = restAdapter({
        baseUrl: `${upstream.url}/api`,
        tools: [{ name: "run_job", description: "Run a job.", submit: { url: "/jobs" } }],
        reference: { path: "id" },
        status: { url: "/jobs/{{job.id}}", field: "state", working: ["running"], completed: ["done"] },
      });
      const client = await serve(adapter);
      const started = await client.callTool("run_job", {});
      expect(started["status"]).toBe("working");
      expectWithinTarget(await pollDuringOutage(client, upstream, started["taskId"], outage));
    });
  }
});
