/**
 * The job record the demo API answers with. This is the demo's public wire format: the demo adapter,
 * the REST adapter's demo preset and the README all code against it, so fields are only ever added.
 */

export type DemoJobStatus =
  | "queued"
  | "running"
  | "waiting_for_approval"
  | "succeeded"
  | "failed"
  | "rejected"
  | "cancelled";

export type DemoStepStatus = "pending" | "running" | "succeeded" | "failed" | "cancelled" | "skipped";

export type DemoApprovalState = "pending" | "approved" | "rejected";

export interface DemoStep {
  /** 1-based position in the pipeline. */
  number: number;
  name: string;
  status: DemoStepStatus;
}

export interface DemoApproval {
  /** Fresh for every approval gate: `appr_<random>`. */
  id: string;
  message: string;
  state: DemoApprovalState;
  comment?: string;
}

export interface DemoJobRecord {
  /** `job_<random url-safe>`. */
  id: string;
  status: DemoJobStatus;
  name: string;
  totalSteps: number;
  /** 1-based number of the step running or last run; 0 before the first step starts. */
  currentStep: number;
  steps: DemoStep[];
  approval: DemoApproval | null;
  /** The most recent log lines, oldest first. */
  logs: string[];
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  durationMs?: number;
}

export const terminalDemoJobStatuses: ReadonlySet<DemoJobStatus> = new Set([
  "succeeded",
  "failed",
  "rejected",
  "cancelled",
]);

/**
 * A CI-like sequence; tests come third so that the default three-step pipeline, run with `fail`, ends on a
 * failing test. Pipelines longer than the list start over with a numbered round ("test #2") so that
 * every step name in a job stays distinct.
 */
export const demoStepNames: readonly string[] = [
  "checkout",
  "install",
  "test",
  "build",
  "package",
  "deploy",
  "smoke-test",
  "notify",
];

export function demoStepName(stepNumber: number): string {
  const index = (stepNumber - 1) % demoStepNames.length;
  const round = Math.floor((stepNumber - 1) / demoStepNames.length) + 1;
  const name = demoStepNames[index] ?? "step";
  return round === 1 ? name : `${name} #${round}`;
}
