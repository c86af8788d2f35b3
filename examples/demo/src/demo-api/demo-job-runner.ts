import { randomBytes } from "node:crypto";
import { demoStepName, terminalDemoJobStatuses, type DemoJobRecord, type DemoJobStatus } from "./demo-job-record.js";
import { stepFailedLines, stepStartedLines, stepSucceededLines } from "./demo-step-logs.js";

/** What POST /jobs asks for, defaults already applied. */
export interface DemoJobRequest {
  steps: number;
  stepMs: number;
  approval: boolean;
  fail: boolean;
  name: string;
}

export interface DemoJobRunnerOptions {
  /** How long a job stays queued at most; never longer than one step. */
  queueDelayMs: number;
  /** How long after a cancel request the job actually stops, as a CI runner would. */
  cancelDelayMs: number;
  /** How long a finished job stays readable. */
  retentionMs: number;
}

export type ApprovalOutcome = { record: DemoJobRecord } | { conflict: string } | undefined;
export type CancelOutcome = { record: DemoJobRecord } | { conflict: string } | undefined;

interface RunningJob {
  record: DemoJobRecord;
  request: DemoJobRequest;
  /** The one pending lifecycle timer (queue, step, cancel or retention). */
  timer: NodeJS.Timeout | undefined;
  /** Separate from `timer`: the steps keep running until the cancellation lands. */
  cancelTimer: NodeJS.Timeout | undefined;
  approvalAsked: boolean;
}

/** Enough lines for a useful excerpt; a long pipeline must not grow a record without bound. */
const maximumLogLines = 200;

function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("base64url")}`;
}

/**
 * The demo API's jobs, in memory, each driven by one timer at a time. All timers are unref'd so that an
 * embedding process (a test, the CLI) can exit without closing the runner, and close() clears them anyway.
 */
export function createDemoJobRunner(options: DemoJobRunnerOptions) {
  const jobs = new Map<string, RunningJob>();

  function touch(job: RunningJob, ...lines: string[]): void {
    job.record.updatedAt = new Date().toISOString();
    if (lines.length > 0) {
      job.record.logs.push(...lines);
      if (job.record.logs.length > maximumLogLines) job.record.logs.splice(0, job.record.logs.length - maximumLogLines);
    }
  }

  function schedule(job: RunningJob, delayMs: number, action: () => void): void {
    if (job.timer) clearTimeout(job.timer);
    job.timer = setTimeout(() => {
      job.timer = undefined;
      action();
    }, delayMs);
    job.timer.unref();
  }

  function isTerminal(job: RunningJob): boolean {
    return terminalDemoJobStatuses.has(job.record.status);
  }

  function finish(job: RunningJob, status: DemoJobStatus, ...lines: string[]): void {
    const now = new Date();
    job.record.status = status;
    job.record.finishedAt = now.toISOString();
    job.record.durationMs = now.getTime() - Date.parse(job.record.createdAt);
    touch(job, ...lines, `Job ${status} after ${job.record.durationMs} ms`);
    // setTimeout fires at once for delays past 2^31-1 ms (about 24.8 days): clamp rather than forget early.
    schedule(job, Math.min(options.retentionMs, 2 ** 31 - 1), () => jobs.delete(job.record.id));
  }

  function startStep(job: RunningJob, stepNumber: number): void {
    const step = job.record.steps[stepNumber - 1];
    if (!step) return;
    job.record.status = "running";
    job.record.currentStep = stepNumber;
    step.status = "running";
    touch(job, ...stepStartedLines(stepNumber, job.record.totalSteps, step.name));
    schedule(job, job.request.stepMs, () => finishStep(job));
  }

  function finishStep(job: RunningJob): void {
    const stepNumber = job.record.currentStep;
    const step = job.record.steps[stepNumber - 1];
    if (!step) return;
    if (job.request.fail && stepNumber === job.record.totalSteps) {
      step.status = "failed";
      finish(job, "failed", ...stepFailedLines(step.name));
      return;
    }
    step.status = "succeeded";
    touch(job, ...stepSucceededLines(step.name));
    if (job.request.approval && !job.approvalAsked) {
      askApproval(job);
    } else {
      continueAfter(job, stepNumber);
    }
  }

  function continueAfter(job: RunningJob, stepNumber: number): void {
    if (stepNumber < job.record.totalSteps) startStep(job, stepNumber + 1);
    else finish(job, "succeeded");
  }

  function askApproval(job: RunningJob): void {
    job.approvalAsked = true;
    const message = `Deploy ${job.record.name} to production?`;
    job.record.approval = { id: randomId("appr"), message, state: "pending" };
    job.record.status = "waiting_for_approval";
    touch(job, `Waiting for approval: ${message}`);
  }

  function skipRemainingSteps(job: RunningJob): void {
    for (const step of job.record.steps) {
      if (step.status === "running") step.status = "cancelled";
      else if (step.status === "pending") step.status = "skipped";
    }
  }

  function snapshot(job: RunningJob): DemoJobRecord {
    return structuredClone(job.record);
  }

  return {
    create(request: DemoJobRequest): DemoJobRecord {
      const now = new Date().toISOString();
      const record: DemoJobRecord = {
        id: randomId("job"),
        status: "queued",
        name: request.name,
        totalSteps: request.steps,
        currentStep: 0,
        steps: Array.from({ length: request.steps }, (_, index) => ({
          number: index + 1,
          name: demoStepName(index + 1),
          status: "pending" as const,
        })),
        approval: null,
        logs: [`Job ${request.name} queued with ${request.steps} steps`],
        createdAt: now,
        updatedAt: now,
      };
      const job: RunningJob = { record, request, timer: undefined, cancelTimer: undefined, approvalAsked: false };
      jobs.set(record.id, job);
      schedule(job, Math.min(options.queueDelayMs, request.stepMs), () => startStep(job, 1));
      return snapshot(job);
    },

    get(id: string): DemoJobRecord | undefined {
      const job = jobs.get(id);
      return job && snapshot(job);
    },

    answerApproval(
      id: string,
      answer: { approvalId: string; approve: boolean; comment?: string | undefined },
    ): ApprovalOutcome {
      const job = jobs.get(id);
      if (!job) return undefined;
      const approval = job.record.approval;
      if (job.record.status !== "waiting_for_approval" || !approval || approval.state !== "pending") {
        return { conflict: `job ${id} is not waiting for approval (status: ${job.record.status})` };
      }
      if (answer.approvalId !== approval.id) {
        return { conflict: `approval ${answer.approvalId} is not the pending approval of job ${id}` };
      }
      approval.state = answer.approve ? "approved" : "rejected";
      if (answer.comment !== undefined) approval.comment = answer.comment;
      const said = answer.comment ? `: ${answer.comment}` : "";
      if (answer.approve) {
        touch(job, `Approved${said}`);
        continueAfter(job, job.record.currentStep);
      } else {
        skipRemainingSteps(job);
        finish(job, "rejected", `Rejected${said}`);
      }
      return { record: snapshot(job) };
    },

    requestCancel(id: string): CancelOutcome {
      const job = jobs.get(id);
      if (!job) return undefined;
      if (isTerminal(job)) return { conflict: `job ${id} already finished (status: ${job.record.status})` };
      if (!job.cancelTimer) {
        touch(job, "Cancellation requested");
        // Like a CI runner, the job stops a moment later; until then it keeps its current status.
        job.cancelTimer = setTimeout(() => {
          if (isTerminal(job)) return;
          skipRemainingSteps(job);
          finish(job, "cancelled", "Cancelled");
        }, options.cancelDelayMs);
        job.cancelTimer.unref();
      }
      return { record: snapshot(job) };
    },

    close(): void {
      for (const job of jobs.values()) {
        clearTimeout(job.timer);
        clearTimeout(job.cancelTimer);
      }
      jobs.clear();
    },
  };
}

export type DemoJobRunner = ReturnType<typeof createDemoJobRunner>;
