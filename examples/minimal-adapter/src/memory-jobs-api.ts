import { JobNotFoundError, UpstreamError } from "@jobtasks/core";

/** The upstream's own words for a job's state. */
export type MemoryJobState = "running" | "waiting_for_approval" | "succeeded" | "rejected" | "cancelled";

export interface MemoryJob {
  state: MemoryJobState;
  reads: number;
}

/**
 * The "upstream": a job table in memory, standing where an HTTP client would. The only file that knows how
 * jobs are kept; everything it cannot do ends as the contract's errors.
 */
export class MemoryJobTable {
  readonly #jobs = new Map<number, MemoryJob>();
  #nextId = 1;
  /** While true every read fails as a 503 would: an outage. */
  unavailable = false;

  /** `apiKey`: when set, every call must present it, as an upstream's credential would be. */
  constructor(
    readonly pollsToFinish: number,
    readonly apiKey?: string,
  ) {}

  /** The table as a client holding `key` sees it: every call is refused (401) unless the key is the table's. */
  withKey(key: string | undefined): Pick<MemoryJobTable, "create" | "read" | "approve" | "cancel" | "pollsToFinish"> {
    const check = () => {
      if (this.apiKey !== undefined && key !== this.apiKey)
        throw new UpstreamError("the job table refused the API key", { httpStatus: 401 });
    };
    return {
      pollsToFinish: this.pollsToFinish,
      create: (askFirst) => (check(), this.create(askFirst)),
      read: (id, signal) => (check(), this.read(id, signal)),
      approve: (id, approved, signal) => (check(), this.approve(id, approved, signal)),
      cancel: (id, signal) => (check(), this.cancel(id, signal)),
    };
  }

  create(askFirst: boolean): number {
    const id = this.#nextId++;
    this.#jobs.set(id, { state: askFirst ? "waiting_for_approval" : "running", reads: 0 });
    return id;
  }

  /** Put a job into a state directly (tests). */
  put(id: number, state: MemoryJobState): void {
    this.#jobs.set(id, { state, reads: 0 });
  }

  /** A job's state without reading it (tests). */
  stateOf(id: number): MemoryJobState | undefined {
    return this.#jobs.get(id)?.state;
  }

  /** One read; a running job succeeds on its `pollsToFinish`-th read. */
  read(id: number, signal: AbortSignal): MemoryJob {
    const job = this.#find(id, signal);
    job.reads += 1;
    if (job.state === "running" && job.reads >= this.pollsToFinish) job.state = "succeeded";
    return { ...job };
  }

  approve(id: number, approved: boolean, signal: AbortSignal): void {
    const job = this.#find(id, signal);
    if (job.state === "waiting_for_approval") job.state = approved ? "running" : "rejected";
  }

  cancel(id: number, signal: AbortSignal): void {
    const job = this.#find(id, signal);
    if (job.state === "running" || job.state === "waiting_for_approval") job.state = "cancelled";
  }

  #find(id: number, signal: AbortSignal): MemoryJob {
    signal.throwIfAborted();
    if (this.unavailable) throw new UpstreamError("the job table is unavailable", { httpStatus: 503 });
    const job = this.#jobs.get(id);
    if (!job) throw new JobNotFoundError(`job ${id} does not exist`);
    return job;
  }
}
