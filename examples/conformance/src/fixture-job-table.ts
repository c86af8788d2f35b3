import { randomUUID } from "node:crypto";
import { JobNotFoundError, type ElicitationResponse, type StartInputResponse } from "@jobtasks/core";

/** One fixture job: what it was started with, and what happened to it since. */
export interface FixtureJob {
  id: string;
  tool: string;
  input: unknown;
  startedAt: number;
  /** Answers given before the start (the tool's inputBeforeStart questions). */
  startAnswers: Readonly<Record<string, StartInputResponse>>;
  /** Answers delivered through tasks/update, by input request key. */
  answers: Record<string, ElicitationResponse>;
  cancelledAt?: number;
}

/**
 * The fixtures' job API: an in-memory table, in the adapter's own process. A job's state is computed from
 * the clock and the answers it received, so no timer runs. Bounded: past `maxJobs`, the oldest job is
 * forgotten (its task then reads as not found, as for an upstream that dropped a record).
 */
export class FixtureJobTable {
  readonly #jobs = new Map<string, FixtureJob>();
  readonly #maxJobs: number;

  constructor(maxJobs = 10_000) {
    this.#maxJobs = maxJobs;
  }

  add(
    tool: string,
    input: unknown,
    startedAt: number,
    startAnswers: Readonly<Record<string, StartInputResponse>>,
  ): FixtureJob {
    const job: FixtureJob = { id: randomUUID(), tool, input, startedAt, startAnswers, answers: {} };
    this.#jobs.set(job.id, job);
    if (this.#jobs.size > this.#maxJobs) this.#jobs.delete(this.#jobs.keys().next().value!);
    return job;
  }

  get(id: string): FixtureJob {
    const job = this.#jobs.get(id);
    if (!job) throw new JobNotFoundError(`fixture job ${id} is not known (the server restarted, or it was forgotten)`);
    return job;
  }
}
