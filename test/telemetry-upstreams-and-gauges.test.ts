import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { UpstreamError, z, type JobAdapterV1, type JobSnapshot } from "@jobtasks/core";
import { githubActions } from "@jobtasks/github-actions";
import { upstreamRequestStarted } from "@jobtasks/core/adapter-utils";
import { TaskIdSealer, TaskService, createSilentLogger } from "@jobtasks/server";
import { startFakeGithub } from "./support/fake-github-api.js";
import { Cleanup, randomSecret, startInProcessServer } from "./support/in-process-server.js";
import { rawCall } from "./support/raw-rpc.js";
import { openListenStream } from "./support/listen-stream.js";
import { samplesOf, startTestTelemetry } from "./support/test-telemetry.js";

/**
 * What the gauges, the upstream requests of a real adapter and the webhook counter report, with the SDK
 * registered: GitHub through the adapter's real Octokit stack (the loopback fake), and a hand-driven
 * adapter for the cache's coalesced and held reads.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "ghp_TelemetryTokenThatMustNeverLeak012345";
const webhookSecret = "telemetry-webhook-secret-0123456789";

describe("upstream requests of a real adapter", () => {
  it("GitHub's requests are named by Octokit's route templates, with the rate budget GitHub reports, and no repository, id or token", async () => {
    const observed = startTestTelemetry();
    cleanup.defer(() => observed.close());
    const github = cleanup.add(await startFakeGithub());
    const adapter = githubActions(
      {
        token,
        webhookSecret,
        baseUrl: github.url,
        workflows: [{ tool: "run_ci", repository: "octo-org/octo-app", workflow: "ci.yml", ref: "main" }],
        pollIntervalMs: 10_000,
        lookupPollMs: 5,
        requestRetries: 0,
      },
      {},
    );
    const server = cleanup.add(
      await startInProcessServer({
        adapters: [{ name: "github", adapter }],
        service: { telemetry: observed.telemetry },
      }),
    );
    const runId = github.nextRunId;
    const call = await rawCall(server.url, "tools/call", { name: "run_ci", arguments: {} });
    const taskId = call.body?.result?.["taskId"] as string;
    expect(taskId).toEqual(expect.any(String));

    const upstreamSpans = observed.spans().filter((span) => span.attributes["url.template"] !== undefined);
    const templates = upstreamSpans.map((span) => span.attributes["url.template"]);
    expect(templates).toContain("/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches");
    const text = await observed.prometheusText();
    expect(samplesOf(text, "jobtasks_upstream_rate_limit_remaining")).toContainEqual({
      labels: expect.objectContaining({ jobtasks_adapter_instance: "github", jobtasks_credential: "token" }),
      value: 4990,
    });
    expect(samplesOf(text, "jobtasks_upstream_rate_limit_limit")).toContainEqual({
      labels: expect.objectContaining({ jobtasks_adapter_instance: "github" }),
      value: 5000,
    });

    // Deliveries by outcome: a forged one, one to an instance that does not exist (never a label), a real one.
    const delivery = workflowRunDelivery(runId);
    expect(await deliver(new URL("/hooks/github", server.url), delivery, "sha256=" + "0".repeat(64))).toBe(401);
    expect(await deliver(new URL("/hooks/made-up-name", server.url), delivery, sign(delivery))).toBe(404);
    expect(await deliver(new URL("/hooks/github", server.url), delivery, sign(delivery))).toBe(202);
    const afterDeliveries = await observed.prometheusText();
    const deliveries = samplesOf(afterDeliveries, "jobtasks_webhook_deliveries_total");
    expect(deliveries).toContainEqual({
      labels: expect.objectContaining({ jobtasks_adapter_instance: "github", jobtasks_delivery_outcome: "refused" }),
      value: 1,
    });
    expect(deliveries).toContainEqual({
      labels: expect.objectContaining({ jobtasks_adapter_instance: "github", jobtasks_delivery_outcome: "applied" }),
      value: 1,
    });
    // A delivery to an instance that does not exist is refused before the receiver: it counts as an HTTP
    // request to the route's template, never under its own name.
    expect(samplesOf(afterDeliveries, "http_server_request_duration_count")).toContainEqual({
      labels: expect.objectContaining({ http_route: "/hooks/{instance}", http_response_status_code: "404" }),
      value: 1,
    });
    expect(observed.spans().filter((span) => span.name === "jobtasks.webhook.delivery")).toHaveLength(2);

    // The exposition's names and labels, not its sample values: a duration sum such as 0.02657339300000001
    // holds any ten-digit run id's digits by chance, and a measured value never carries an id.
    const recorded =
      JSON.stringify(observed.spans().map((span) => [span.name, span.attributes])) +
      withoutSampleValues(afterDeliveries);
    for (const secret of [token, webhookSecret, taskId, "octo-org", "octo-app", String(runId), "made-up-name"])
      expect(recorded).not.toContain(secret);
  });
});

/** One job whose status reads the test answers by hand. */
function handDrivenAdapter() {
  const pending: Array<(answer: () => JobSnapshot) => void> = [];
  const adapter: JobAdapterV1<{ jobId: string }> = {
    specificationVersion: "v1",
    kind: "hand-driven",
    refSchema: z.object({ jobId: z.string() }),
    tools: [
      {
        name: "hand_job",
        description: "a job the test moves",
        inputSchema: z.object({}).strict(),
        doStart: async () => ({ ref: { jobId: "job-1" } }),
      },
    ],
    doGetStatus: () =>
      new Promise<JobSnapshot>((resolve, reject) =>
        pending.push((answer) => {
          try {
            resolve(answer());
          } catch (error) {
            reject(error);
          }
        }),
      ),
  };
  return { adapter, answerNext: (answer: () => JobSnapshot) => pending.shift()?.(answer), pending };
}

describe("the cache, holds, waits and subscribers", () => {
  it("counts coalesced and held reads, and reports holds, open waits and push subscribers as gauges", async () => {
    const observed = startTestTelemetry();
    cleanup.defer(() => observed.close());
    const hand = handDrivenAdapter();
    const server = cleanup.add(
      await startInProcessServer({
        adapters: [{ name: "hand", adapter: hand.adapter }],
        service: { telemetry: observed.telemetry, snapshotCacheMs: 0 },
        subscriptionIntervalMs: 60_000,
      }),
    );
    const service = server.service;
    const caller = { principal: "local", signal: new AbortController().signal };
    const starting = service.callTool("hand_job", {}, { ...caller, tasksDeclared: true });
    await until(() => hand.pending.length === 1);
    hand.answerNext(() => ({ status: "working", rawStatus: "running" }));
    const taskId = ((await starting) as { taskId: string }).taskId;

    // Two polls while one read is in flight: the second joins it.
    const first = service.getTask(taskId, caller);
    const second = service.getTask(taskId, caller);
    await until(() => hand.pending.length === 1);
    hand.answerNext(() => {
      throw new UpstreamError("rate limited", { httpStatus: 429, retryAfterMs: 60_000 });
    });
    await Promise.all([first, second]);
    // The upstream asked to wait a minute: the next poll is answered from memory, and a hold is active.
    await service.getTask(taskId, caller);
    // A task_status wait and a subscription stay open while the gauges are read.
    const waiting = rawCall(
      server.url,
      "tools/call",
      { name: "task_status", arguments: { taskId, waitSeconds: 30 } },
      { tasks: false },
    );
    const listen = await openListenStream(server.url, [taskId]);
    cleanup.defer(() => listen.close());
    await new Promise((resolve) => setTimeout(resolve, 200));

    const text = await observed.prometheusText();
    const sources = Object.fromEntries(
      samplesOf(text, "jobtasks_snapshot_reads_total").map((sample) => [
        sample.labels["jobtasks_snapshot_source"],
        sample.value,
      ]),
    );
    // Misses: the first read of the start, and the first poll; the second poll joined it.
    expect(sources).toMatchObject({ miss: 2, coalesced: 1 });
    expect(sources["held"]).toBeGreaterThanOrEqual(1);
    expect(samplesOf(text, "jobtasks_upstream_holds_active")[0]?.value).toBe(1);
    expect(samplesOf(text, "jobtasks_waits_open")[0]?.value).toBe(1);
    expect(samplesOf(text, "jobtasks_push_subscribers")[0]?.value).toBe(1);
    // The coalesced read has a span of its own; the held ones are attributes of their requests' spans
    // (task_status over HTTP here).
    expect(observed.spans().filter((span) => span.attributes["jobtasks.snapshot.source"] === "coalesced")).toHaveLength(
      1,
    );

    await service.stopWaiting(1000);
    await waiting;
    const statusCall = observed.spans().find((span) => span.name === "tools/call task_status");
    expect(statusCall?.attributes["jobtasks.snapshot.source"]).toBe("held");
    await listen.close();
    await until(async () => samplesOf(await observed.prometheusText(), "jobtasks_push_subscribers")[0]?.value === 0);
  });
});

describe("the reader's retries", () => {
  it("mark an upstream request the reader sent again with http.request.resend_count", async () => {
    const observed = startTestTelemetry();
    cleanup.defer(() => observed.close());
    let reads = 0;
    const adapter: JobAdapterV1<{ jobId: string }> = {
      specificationVersion: "v1",
      kind: "flaky",
      refSchema: z.object({ jobId: z.string() }),
      tools: [
        {
          name: "flaky_job",
          description: "a job whose upstream fails once",
          inputSchema: z.object({}).strict(),
          doStart: async () => ({ ref: { jobId: "job-1" } }),
        },
      ],
      doGetStatus: async () => {
        const request = upstreamRequestStarted({ operation: "get_job", method: "GET", urlTemplate: "/jobs/{job_id}" });
        reads += 1;
        if (reads === 1) {
          request.end({ status: 503 });
          throw new UpstreamError("unavailable", { httpStatus: 503 });
        }
        request.end({ status: 200 });
        return { status: "working", rawStatus: "running" };
      },
    };
    const server = cleanup.add(
      await startInProcessServer({
        adapters: [{ name: "flaky", adapter }],
        service: { telemetry: observed.telemetry, immediateRetries: 1, immediateRetryDelayMs: 1 },
      }),
    );
    await rawCall(server.url, "tools/call", { name: "flaky_job", arguments: {} });
    const attempts = observed.spans().filter((span) => span.name === "GET /jobs/{job_id}");
    expect(
      attempts.map((span) => [
        span.attributes["http.response.status_code"],
        span.attributes["http.request.resend_count"],
      ]),
    ).toEqual([
      [503, undefined],
      [200, 1],
    ]);
    expect(attempts[0]!.attributes["error.type"]).toBe("503");
  });
});

describe("a service with no SDK registered", () => {
  it("records nothing and wraps nothing that costs: telemetry is off", () => {
    const service = new TaskService({
      adapters: [{ name: "hand", adapter: handDrivenAdapter().adapter }],
      sealer: new TaskIdSealer({ secret: randomSecret(), secretSource: "JOBTASKS_SECRET" }),
      logger: createSilentLogger(),
    });
    expect(service.telemetry.enabled).toBe(false);
    expect(service.telemetry.instruments).toBeUndefined();
  });
});

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function workflowRunDelivery(runId: number): string {
  const payload = JSON.parse(
    readFileSync(
      new URL("../adapters/github-actions/src/__fixtures__/webhook-workflow-run-completed.json", import.meta.url),
      "utf8",
    ),
  ) as { action: string; workflow_run: Record<string, unknown> };
  payload.action = "completed";
  Object.assign(payload.workflow_run, { id: runId, status: "completed", conclusion: "success" });
  return JSON.stringify(payload);
}

function sign(body: string): string {
  return `sha256=${createHmac("sha256", webhookSecret).update(body).digest("hex")}`;
}

async function deliver(url: URL, body: string, signature: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "workflow_run",
      "x-github-delivery": "5d0f1c3a-cf0e-11f0-8a2b-0242ac120002",
      "x-hub-signature-256": signature,
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** A Prometheus exposition with each sample's value (and timestamp) cut off: its comments, names and labels. */
function withoutSampleValues(exposition: string): string {
  return exposition
    .split("\n")
    .map((line) => {
      if (line.startsWith("#")) return line;
      const labelsEnd = line.lastIndexOf("}");
      return labelsEnd >= 0 ? line.slice(0, labelsEnd + 1) : line.split(" ")[0];
    })
    .join("\n");
}
