import type { GithubApi } from "./github-actions-api.js";
import type { WorkflowJob } from "./github-response-schemas.js";
import type { RunRef } from "./run-ref.js";

/** What is known of one run attempt: its status as last read or told, GitHub's time of it, and its jobs. */
export interface RememberedRun {
  status: string | null;
  updatedAt: string;
  /** Every job of the attempt, when the last read listed them all (a list past one page is not kept). */
  jobs?: WorkflowJob[];
}

/**
 * The last status and jobs read of each followed run attempt, so that a `workflow_job` delivery, which
 * carries one job whole (status, conclusion, steps), can give the run's snapshot without a request: the
 * run's message comes from all its jobs. Bounded (least recently used go first) and only an
 * optimisation: a run it does not hold is read again, as without it.
 */
export class RunMemory {
  readonly #runs = new Map<string, RememberedRun>();

  constructor(private readonly maxRuns = 5000) {}

  recall(ref: RunRef): RememberedRun | undefined {
    const key = keyOf(ref);
    const run = this.#runs.get(key);
    if (run) this.#set(key, run);
    return run;
  }

  /**
   * The attempt's status as a read found it or a delivery told it. Never back in GitHub's time: what a read
   * that began before a delivery found, or a late delivery tells, leaves the newer status as it is.
   */
  rememberRun(ref: RunRef, run: { status: string | null; updated_at: string }): void {
    const known = this.#runs.get(keyOf(ref));
    if (known && Date.parse(run.updated_at) < Date.parse(known.updatedAt)) return;
    this.#set(keyOf(ref), {
      status: run.status,
      updatedAt: run.updated_at,
      ...(known?.jobs ? { jobs: known.jobs } : {}),
    });
  }

  /** As rememberRun, for a run already remembered only: deliveries name every run, followed or not. */
  noteRun(ref: RunRef, run: { status: string | null; updated_at: string }): void {
    if (this.#runs.has(keyOf(ref))) this.rememberRun(ref, run);
  }

  /**
   * The jobs as a read listed them, or as an event moved one of them on. A job never moves back: a read
   * that began before an event (or an event delivered late) keeps the further of the two states.
   */
  rememberJobs(ref: RunRef, jobs: { total_count: number; jobs: WorkflowJob[] }, updatedAt?: string): void {
    const key = keyOf(ref);
    const known = this.#runs.get(key);
    if (!known) return;
    if (jobs.total_count > jobs.jobs.length) {
      const { jobs: _dropped, ...rest } = known;
      this.#set(key, rest);
      return;
    }
    const before = new Map((known.jobs ?? []).map((job) => [String(job.id), job]));
    const merged = jobs.jobs.map((job) => furtherOf(before.get(String(job.id)), job));
    this.#set(key, {
      ...known,
      jobs: merged,
      ...(updatedAt !== undefined && Date.parse(updatedAt) > Date.parse(known.updatedAt) ? { updatedAt } : {}),
    });
  }

  #set(key: string, run: RememberedRun): void {
    this.#runs.delete(key);
    this.#runs.set(key, run);
    if (this.#runs.size > this.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
  }
}

/**
 * The jobs with `job` in its place (or added: a job GitHub lists once it is queued), unless the known one
 * is further on, which stays.
 */
export function withJob(jobs: readonly WorkflowJob[], job: WorkflowJob): WorkflowJob[] {
  const index = jobs.findIndex((known) => String(known.id) === String(job.id));
  if (index < 0) return [...jobs, job];
  return jobs.map((known, at) => (at === index ? furtherOf(known, job) : known));
}

/** Whichever state of one job is further on: by status, then by steps done; the newer one when they tie. */
function furtherOf(known: WorkflowJob | undefined, job: WorkflowJob): WorkflowJob {
  if (!known) return job;
  const [a, b] = [progressOf(known), progressOf(job)];
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? known : job;
}

function progressOf(job: WorkflowJob): [number, number] {
  const rank = job.status === "completed" ? 2 : job.status === "in_progress" ? 1 : 0;
  const steps = job.steps.reduce(
    (sum, step) => sum + (step.status === "completed" ? 2 : step.status === "in_progress" ? 1 : 0),
    0,
  );
  return [rank, steps];
}

/** The status reads' API, noting what each read of an attempt and its jobs said. */
export function rememberingReads(api: GithubApi, memory: RunMemory): GithubApi {
  return {
    ...api,
    async getRunAttempt(ref, options) {
      const run = await api.getRunAttempt(ref, options);
      memory.rememberRun(ref, run);
      return run;
    },
    async listAttemptJobs(ref, options) {
      const jobs = await api.listAttemptJobs(ref, options);
      memory.rememberJobs(ref, jobs);
      return jobs;
    },
  };
}

/** One attempt, however its owner and repository are capitalised (GitHub's names are case-insensitive). */
function keyOf(ref: RunRef): string {
  return JSON.stringify([ref.owner.toLowerCase(), ref.repo.toLowerCase(), String(ref.runId), ref.attempt]);
}
