import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A GitHub REST stand-in for the events benchmark: the few endpoints the GitHub Actions adapter reads to
 * follow a run (the run, one attempt, its jobs, its artifacts), with ETags and 304s as GitHub answers them,
 * and counts of every request: all of them, the 304s, and the rest, which GitHub charges to the token's
 * primary rate limit. Its clock is the benchmark's, so a simulated hour is one rate-limit window. It is
 * served on 127.0.0.1, or called in process through `fetch` (no socket) where a simulated hour of 1,000
 * runs would otherwise spend the benchmark's time in the loopback stack.
 */

export const benchOwner = "octo-org";
export const benchRepo = "octo-app";
/** GitHub's primary limit for a personal access token, per hour. */
export const tokenRequestsPerHour = 5000;

export interface BenchJob {
  id: number;
  name: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  /** The name of the step in progress (the progress message shows it), or null when none is. */
  currentStep: string | null;
  /** GitHub's times of the job (default the run's start, and a fixed end once completed). */
  startedAt?: string;
  completedAt?: string | null;
}

export interface BenchRun {
  id: number;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  updatedAt: string;
  jobs: BenchJob[];
}

export interface RequestCounts {
  /** Every request answered. */
  all: number;
  /** Answered 304 Not Modified: free of rate limit. */
  notModified: number;
  /** Every other answer: what GitHub charges to the token. */
  charged: number;
}

export interface CountingGithub {
  runs: Map<number, BenchRun>;
  counts: RequestCounts;
  addRun(id: number, changes?: Partial<BenchRun>): BenchRun;
  update(id: number, changes: Partial<BenchRun>): void;
  /** An in-process transport for the adapter's `fetch` option. */
  fetch: typeof fetch;
  /** Serve on a free 127.0.0.1 port; returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function createCountingGithub(now: () => number = Date.now): CountingGithub {
  const runs = new Map<number, BenchRun>();
  const counts: RequestCounts = { all: 0, notModified: 0, charged: 0 };
  /** Charged requests in the current rate-limit window, which starts at the first request. */
  let window = { startedAt: Number.NaN, charged: 0 };
  let server: Server | undefined;

  function answer(method: string, path: string, ifNoneMatch: string | undefined): Answer {
    counts.all += 1;
    const body = route(method, path);
    const text = body === undefined ? JSON.stringify({ message: "Not Found" }) : JSON.stringify(body);
    const etag = `W/"${createHash("sha1").update(text).digest("hex")}"`;
    const clock = now();
    if (!(clock - window.startedAt < 3_600_000)) window = { startedAt: clock, charged: 0 };
    const notModified = body !== undefined && ifNoneMatch === etag;
    if (notModified) counts.notModified += 1;
    else {
      counts.charged += 1;
      window.charged += 1;
    }
    const headers = {
      "content-type": "application/json; charset=utf-8",
      etag,
      "x-ratelimit-limit": String(tokenRequestsPerHour),
      // Never reported as 0: a benchmark must not stall on the client's wait for the window to refill.
      // The counts say whether the budget held.
      "x-ratelimit-remaining": String(Math.max(1, tokenRequestsPerHour - window.charged)),
      "x-ratelimit-reset": String(Math.ceil((window.startedAt + 3_600_000) / 1000)),
    };
    if (notModified) return { status: 304, headers, body: "" };
    return { status: body === undefined ? 404 : 200, headers, body: text };
  }

  function route(method: string, path: string): unknown {
    const match = new RegExp(`^/repos/${benchOwner}/${benchRepo}/actions/runs/(\\d+)(/.*)?$`).exec(path);
    const run = match ? runs.get(Number(match[1])) : undefined;
    if (method !== "GET" || !run) return undefined;
    const rest = match![2] ?? "";
    if (rest === "" || rest === "/attempts/1") return runJson(run);
    if (rest === "/attempts/1/jobs") return { total_count: run.jobs.length, jobs: run.jobs.map(jobJson) };
    if (rest === "/artifacts") return { total_count: 0, artifacts: [] };
    return undefined;
  }

  const fake: CountingGithub = {
    runs,
    counts,
    addRun(id, changes = {}) {
      const run: BenchRun = {
        id,
        status: "in_progress",
        conclusion: null,
        updatedAt: new Date(now()).toISOString(),
        jobs: [{ id: id * 10, name: "build", status: "in_progress", conclusion: null, currentStep: "Compile" }],
        ...changes,
      };
      runs.set(id, run);
      return run;
    },
    update(id, changes) {
      Object.assign(runs.get(id)!, changes);
    },
    fetch: async (input, init) => {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      const ifNoneMatch = new Headers(init?.headers).get("if-none-match") ?? undefined;
      const { status, headers, body } = answer((init?.method ?? "GET").toUpperCase(), url.pathname, ifNoneMatch);
      return new Response(status === 304 ? null : body, { status, headers });
    },
    async listen() {
      server = createServer((request, response) => {
        const url = new URL(request.url ?? "/", "http://127.0.0.1");
        const ifNoneMatch = request.headers["if-none-match"];
        request.resume();
        request.on("end", () => {
          const { status, headers, body } = answer(request.method ?? "GET", url.pathname, ifNoneMatch);
          response.writeHead(status, headers);
          response.end(status === 304 ? undefined : body);
        });
      });
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      if (!server) return;
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
    },
  };
  return fake;
}

function runJson(run: BenchRun): Record<string, unknown> {
  return {
    id: run.id,
    name: "CI",
    display_title: "CI",
    path: ".github/workflows/ci.yml",
    status: run.status,
    conclusion: run.conclusion,
    run_attempt: 1,
    html_url: `https://github.com/${benchOwner}/${benchRepo}/actions/runs/${run.id}`,
    head_branch: "main",
    head_sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
    event: "push",
    created_at: "2026-11-20T10:00:00Z",
    updated_at: run.updatedAt,
    run_started_at: "2026-11-20T10:00:00Z",
  };
}

/** A job as GitHub's jobs list and its workflow_job deliveries show it (the same shape in both). */
export function jobJson(job: BenchJob): Record<string, unknown> {
  const startedAt = job.startedAt ?? "2026-11-20T10:00:00Z";
  const steps = job.currentStep === null ? [] : [{ name: job.currentStep, number: 1, status: "in_progress" }];
  return {
    id: job.id,
    name: job.name,
    status: job.status,
    conclusion: job.conclusion,
    started_at: startedAt,
    completed_at: job.status === "completed" ? (job.completedAt ?? "2026-11-20T10:30:00Z") : null,
    html_url: `https://github.com/${benchOwner}/${benchRepo}/actions/runs/job/${job.id}`,
    steps: steps.map((step) => ({ ...step, conclusion: null, started_at: startedAt, completed_at: null })),
  };
}
