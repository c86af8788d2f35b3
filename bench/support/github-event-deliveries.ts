import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AnyJobAdapter } from "@jobtasks/core";
import { githubActions } from "@jobtasks/github-actions";
import { TaskService, createSilentLogger, TaskIdSealer } from "@jobtasks/server";
import {
  benchOwner,
  benchRepo,
  createCountingGithub,
  jobJson,
  type BenchJob,
  type CountingGithub,
} from "./counting-fake-github.js";

/**
 * What the events benchmarks (events.ts, events-budget.ts) share: the GitHub Actions adapter on the
 * counting fake, GitHub's deliveries in the shapes of the adapter's fixtures, signed, and a service on a
 * simulated clock that counts status reads.
 */

export const token = "ghp_BenchEventsTokenNeverSentAnywhere0123";
export const webhookSecret = "bench-webhook-secret-0123456789abcdef";
export const instance = "github";
const repository = `${benchOwner}/${benchRepo}`;

export function githubAdapter(
  github: CountingGithub,
  options: { events: boolean; baseUrl?: string; now?: () => number },
) {
  return githubActions(
    {
      token,
      ...(options.events ? { webhookSecret } : {}),
      // With the in-process transport nothing is ever sent to this address.
      baseUrl: options.baseUrl ?? "http://127.0.0.1:1",
      repositories: [repository],
      requestRetries: 0,
      ...(options.baseUrl === undefined ? { fetch: github.fetch } : {}),
      ...(options.now ? { now: options.now } : {}),
    },
    {},
  );
}

export function createService(adapter: AnyJobAdapter, now?: () => number): TaskService {
  return new TaskService({
    immediateRetries: 0,
    adapters: [{ name: instance, adapter }],
    sealer: new TaskIdSealer({ secret: "bench-events-secret-0123456789abcdefghijkl", secretSource: "JOBTASKS_SECRET" }),
    logger: createSilentLogger(),
    ...(now ? { now } : {}),
  });
}

// --- Deliveries, as GitHub sends them -------------------------------------------------------------

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../adapters/github-actions/src/__fixtures__/${name}`, import.meta.url), "utf8"),
  ) as Record<string, any>;
const runTemplate = fixture("webhook-workflow-run-in-progress.json");
const jobTemplate = fixture("webhook-workflow-job-in-progress.json");

export interface Delivery {
  event: string;
  deliveryId: string;
  body: string;
}

let nextDelivery = 1;

export function workflowRunDelivery(
  runId: number,
  status: string,
  conclusion: string | null,
  updatedAt: string,
): Delivery {
  const payload = structuredClone(runTemplate);
  payload["action"] = status === "completed" ? "completed" : status === "queued" ? "requested" : "in_progress";
  Object.assign(payload["workflow_run"], { id: runId, status, conclusion, updated_at: updatedAt });
  return { event: "workflow_run", deliveryId: `bench-${nextDelivery++}`, body: JSON.stringify(payload) };
}

/** GitHub's workflow_job delivery for `job` of run `runId` as it is now: the job whole, as the jobs list has it. */
export function workflowJobDelivery(runId: number, job: BenchJob): Delivery {
  // Spread, not structuredClone: Node 20's goes through a message port, the costliest part of a delivery here.
  const payload = {
    ...jobTemplate,
    action: job.status,
    workflow_job: { ...jobTemplate["workflow_job"], ...jobJson(job), run_id: runId, run_attempt: 1 },
  };
  return { event: "workflow_job", deliveryId: `bench-${nextDelivery++}`, body: JSON.stringify(payload) };
}

export const sign = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export function deliveryHeaders(
  delivery: Delivery,
  signature = sign(webhookSecret, delivery.body),
): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-github-event": delivery.event,
    "x-github-delivery": delivery.deliveryId,
    "x-hub-signature-256": signature,
  };
}

/**
 * What POST /hooks/<instance> does with a delivery, in process (the simulated-clock parts run without the
 * HTTP server): the adapter verifies and reads it, the service applies each job's event.
 */
export async function receiveInProcess(
  service: TaskService,
  adapter: AnyJobAdapter,
  delivery: Delivery,
): Promise<void> {
  const received = {
    headers: deliveryHeaders(delivery),
    body: new TextEncoder().encode(delivery.body),
    receivedAt: Date.now(),
  };
  const verification = await adapter.events!.doVerifyDelivery(received);
  if (!verification.verified) throw new Error(`the bench's own delivery did not verify: ${verification.reason}`);
  service.noteVerifiedDelivery(instance);
  const read = await adapter.events!.doReadDelivery(received);
  for (const job of read.jobs) service.applyJobEvent(instance, job);
}

export const iso = (time: number) => new Date(time).toISOString().replace(/\.\d+Z$/, "Z");

// --- A simulated clock ----------------------------------------------------------------------------

/** A GitHub Actions adapter and service on a clock the benchmark moves, with a count of status reads. */
export async function simulatedSetup(events: boolean) {
  const clock = { now: Date.UTC(2026, 10, 20, 10, 0) };
  const now = () => clock.now;
  const github = createCountingGithub(now);
  const adapter = githubAdapter(github, { events, now });
  const reads = { count: 0 };
  const doGetStatus = adapter.doGetStatus.bind(adapter);
  adapter.doGetStatus = (ref, context) => {
    reads.count += 1;
    return doGetStatus(ref, context);
  };
  const service = createService(adapter, now);
  return { clock, github, adapter, service, reads };
}

export type Simulated = Awaited<ReturnType<typeof simulatedSetup>>;

export function snapshotCounts(setup: Simulated) {
  return { reads: setup.reads.count, ...setup.github.counts };
}

export function countsSince(setup: Simulated, before: ReturnType<typeof snapshotCounts>) {
  const after = snapshotCounts(setup);
  return {
    reads: after.reads - before.reads,
    all: after.all - before.all,
    notModified: after.notModified - before.notModified,
    charged: after.charged - before.charged,
  };
}

/**
 * A step starts in the one job of run `runId` upstream at the current simulated time, and (with events)
 * GitHub says so with the job's workflow_job delivery.
 */
export async function changeStep(setup: Simulated, runId: number, step: string, events: boolean): Promise<void> {
  const job: BenchJob = {
    id: runId * 10,
    name: "build",
    status: "in_progress",
    conclusion: null,
    currentStep: step,
    startedAt: iso(setup.clock.now),
  };
  setup.github.update(runId, { status: "in_progress", updatedAt: iso(setup.clock.now), jobs: [job] });
  if (events) await receiveInProcess(setup.service, setup.adapter, workflowJobDelivery(runId, job));
}
