import { z, type DeliveryEventsV1, type JobEventsV1, type JobEventV1, type JsonValue } from "@jobtasks/core";
import { parseDeliveryJson } from "@jobtasks/core/adapter-utils";
import { mapGithubActionsStatus, rawRunStatus } from "./map-github-actions-status.js";
import { githubIdSchema, type RunRef } from "./run-ref.js";
import { jobSchema } from "./github-response-schemas.js";
import type { RateBudget } from "./rate-budget.js";
import { workflowJobSnapshot, type WorkflowJobSnapshotDependencies } from "./workflow-job-snapshot.js";

export interface WebhookEventsDependencies extends WorkflowJobSnapshotDependencies {
  budget: RateBudget;
}

/** What one safety read of a running run costs: its attempt and its jobs. */
const requestsPerSafetyRead = 2;

/**
 * GitHub's webhook deliveries (a repository, organization or App webhook) for this adapter's runs:
 * `workflow_run`, `workflow_job` and `deployment_review`, signed with the webhook's secret in
 * X-Hub-Signature-256. Each names one attempt of one run, as the refs of this adapter's tasks do, so an
 * event of a re-run's attempt never reaches the task of the attempt before it.
 */
/** Imported once: every import() call resolves the module again, which a busy webhook would pay per delivery. */
let webhooksMethods: Promise<typeof import("@octokit/webhooks-methods")> | undefined;

export function githubWebhookEvents(
  webhookSecret: string,
  dependencies: WebhookEventsDependencies,
): JobEventsV1<RunRef> {
  return {
    async doVerifyDelivery({ headers, body }) {
      const signature = headers["x-hub-signature-256"];
      if (!signature) return { verified: false, reason: "no X-Hub-Signature-256 header" };
      if (body.length === 0) return { verified: false, reason: "an empty body" };
      // Constant time (timingSafeEqual over the hex digests); the payload is the body's exact text. Loaded
      // at the first delivery, so that a server's start (a stdio host's first answer) does not pay for it.
      const { verify } = await (webhooksMethods ??= import("@octokit/webhooks-methods"));
      const matches = await verify(webhookSecret, Buffer.from(body).toString("utf8"), signature);
      if (!matches) return { verified: false, reason: "X-Hub-Signature-256 does not match the webhook secret" };
      const deliveryId = headers["x-github-delivery"];
      return deliveryId ? { verified: true, deliveryId } : { verified: true };
    },

    async doReadDelivery({ headers, body }) {
      const event = headers["x-github-event"] ?? "unknown";
      const payload = deliverySchema.parse(parseDeliveryJson(body));
      return {
        event,
        ...(payload.action !== undefined ? { action: payload.action } : {}),
        jobs: jobsOf(event, payload, dependencies),
      };
    },

    // GitHub names are case-insensitive: a ref spelt as a user typed it and one from a payload name one run.
    jobIdentity: (ref): JsonValue => ({ ...ref, owner: ref.owner.toLowerCase(), repo: ref.repo.toLowerCase() }),

    // With webhooks, a run's safety read (for a lost delivery) needs no more than half the token's budget.
    safetyReadIntervalMs: (followedJobs) =>
      dependencies.budget.safetyReadIntervalMs(followedJobs, requestsPerSafetyRead, dependencies.snapshots.now()),
  };
}

/** Only what routing and the snapshots below read; GitHub sends much more, and adds fields over time. */
const runSchema = z.looseObject({
  id: githubIdSchema,
  run_attempt: z.number().int().positive(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  updated_at: z.string(),
});

const deliverySchema = z.looseObject({
  action: z.string().optional(),
  repository: z.looseObject({ name: z.string(), owner: z.looseObject({ login: z.string() }) }).optional(),
  workflow_run: runSchema.nullable().optional(),
  // The job itself is read apart (jobSchema), so a job in a shape this adapter does not know still wakes its run.
  workflow_job: z.looseObject({ run_id: githubIdSchema, run_attempt: z.number().int().positive() }).optional(),
});

type Delivery = z.infer<typeof deliverySchema>;
type Run = z.infer<typeof runSchema>;

function jobsOf(
  event: string,
  payload: Delivery,
  dependencies: WebhookEventsDependencies,
): DeliveryEventsV1<RunRef>["jobs"] {
  const repository = payload.repository;
  if (!repository) return [];
  const refOf = (runId: number | string, attempt: number): RunRef => ({
    owner: repository.owner.login,
    repo: repository.name,
    runId,
    attempt,
  });
  switch (event) {
    case "workflow_run": {
      const run = payload.workflow_run;
      if (!run) return [];
      const ref = refOf(run.id, run.run_attempt);
      // Its status and time are the run's now: a later workflow_job snapshot is never older than them.
      dependencies.memory.noteRun(ref, run);
      return [runEvent(ref, run)];
    }
    // A job queued, started, waiting for an environment's approval or finished: the run's state moved on,
    // and the payload carries the job whole, so a run whose other jobs are known needs no read.
    case "workflow_job": {
      if (!payload.workflow_job) return [];
      const ref = refOf(payload.workflow_job.run_id, payload.workflow_job.run_attempt);
      const job = jobSchema.safeParse(payload.workflow_job);
      const snapshot = job.success ? workflowJobSnapshot(dependencies, ref, job.data) : undefined;
      return [snapshot ? { ref, snapshot } : { ref }];
    }
    // An approval requested, given or refused: the run's questions changed.
    case "deployment_review": {
      const run = payload.workflow_run;
      if (!run) return [];
      const ref = refOf(run.id, run.run_attempt);
      dependencies.memory.noteRun(ref, run);
      return [{ ref, updatedAt: run.updated_at }];
    }
    // deployment_protection_rule names the run in its callback URL but not the attempt; the workflow_job
    // `waiting` event GitHub sends for the same job does, and reaches the task. Pings and the rest: no job.
    default:
      return [];
  }
}

/**
 * A workflow_run event: its snapshot when the payload holds all doGetStatus would say (a queued run, a
 * cancelled one), otherwise the news that the run changed (a running run's message comes from its jobs,
 * a waiting one's questions from its pending deployments, a finished one's result from jobs and logs).
 */
function runEvent(ref: RunRef, run: Run): JobEventV1<RunRef> {
  const phase = mapGithubActionsStatus(run.status, run.conclusion);
  const base = { rawStatus: rawRunStatus(run.status, run.conclusion), updatedAt: run.updated_at };
  if (phase.phase === "cancelled") return { ref, snapshot: { ...base, status: "cancelled", message: "cancelled" } };
  if (phase.phase === "working" && run.status !== "in_progress")
    return { ref, snapshot: { ...base, status: "working", message: phase.message } };
  return { ref, updatedAt: run.updated_at };
}
