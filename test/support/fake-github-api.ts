import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback stand-in for the parts of GitHub's REST API that the GitHub Actions adapter calls, so that the
 * adapter runs with its real octokit stack (auth, throttling, retries, conditional GETs, log redirects)
 * behind a real jobtasks server. Answers are shaped like GitHub's (trimmed); the test moves each run by
 * hand. Job logs are served from a second origin, as GitHub redirects them to blob storage, so a test can
 * check that the token never travels there.
 */

export const fakeOwner = "octo-org";
export const fakeRepo = "octo-app";

export interface FakeStep {
  name: string;
  status: "queued" | "in_progress" | "completed";
  conclusion?: string | null;
  started_at?: string | null;
  completed_at?: string | null;
}

export interface FakeJob {
  id: number;
  name: string;
  status: "queued" | "in_progress" | "completed" | "waiting";
  conclusion?: string | null;
  started_at?: string | null;
  completed_at?: string | null;
  steps?: FakeStep[];
}

export interface FakePendingDeployment {
  environmentId: number;
  environmentName: string;
  canApprove: boolean;
  reviewers?: Array<{ type: "User"; login: string } | { type: "Team"; slug: string; name: string }>;
}

export interface FakeAttempt {
  status: string;
  conclusion: string | null;
  updatedAt: string;
  runStartedAt: string;
  jobs: FakeJob[];
  pendingDeployments: FakePendingDeployment[];
}

export interface FakeRun {
  id: number;
  name: string;
  path: string;
  headSha: string;
  headBranch: string;
  event: string;
  createdAt: string;
  attempts: FakeAttempt[];
  /** The run's review history (GET .../approvals), oldest first. */
  reviews: Array<{ state: "approved" | "rejected"; comment: string; environmentIds: number[] }>;
  /** Job id -> the annotation messages of its check run. */
  annotations: Map<number, string[]>;
  artifacts: Array<{ id: number; name: string; sizeInBytes: number; createdAt: string }>;
}

export interface RecordedGithubRequest {
  method: string;
  path: string;
  query: string;
  authorization: string | undefined;
  body: any;
}

export interface FakeGithub {
  /** The API base URL to give the adapter (`baseUrl`). */
  url: string;
  /** The origin job logs are redirected to. */
  logOrigin: string;
  runs: Map<number, FakeRun>;
  /** Every request to the API origin, in order. */
  requests: RecordedGithubRequest[];
  /** Every request to the log origin, with its Authorization header (if any). */
  logRequests: Array<{ path: string; authorization: string | undefined }>;
  /** Job id -> its full log text (timestamped lines). */
  logs: Map<number, string>;
  /** Job id -> how many more log downloads the blob host answers 503 (a passing storage fault). */
  logFailures: Map<number, number>;
  /** The run a workflow dispatch creates next; set before calling a dispatch tool. */
  nextRunId: number;
  run(id: number): FakeRun;
  /** The attempt (1-based) of a run; the latest when left out. */
  attempt(id: number, attempt?: number): FakeAttempt;
  /** Change an attempt in place (the latest when left out). */
  update(id: number, changes: Partial<FakeAttempt>, attempt?: number): void;
  requestsTo(method: string, pathPattern: RegExp): RecordedGithubRequest[];
  /**
   * Called when a workflow dispatch arrives; the dispatch is carried out and answered once the returned
   * promise settles: a dispatch in flight, for tests of a client that leaves meanwhile.
   */
  holdDispatchAnswer: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

const startedAt = "2026-11-20T10:00:00Z";

function newAttempt(createdAt: string): FakeAttempt {
  return {
    status: "queued",
    conclusion: null,
    updatedAt: createdAt,
    runStartedAt: createdAt,
    jobs: [],
    pendingDeployments: [],
  };
}

export async function startFakeGithub(): Promise<FakeGithub> {
  const runs = new Map<number, FakeRun>();
  const requests: RecordedGithubRequest[] = [];
  const logRequests: FakeGithub["logRequests"] = [];
  const logs = new Map<number, string>();
  const logFailures = new Map<number, number>();
  let apiOrigin = "";

  const logServer = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    logRequests.push({ path: url.pathname, authorization: request.headers.authorization });
    const jobId = Number(url.pathname.split("/").at(-1));
    const failuresLeft = logFailures.get(jobId) ?? 0;
    if (failuresLeft > 0) {
      logFailures.set(jobId, failuresLeft - 1);
      return send(response, 503, "ServerBusy: The server is currently unable to receive requests.", "text/plain");
    }
    const text = logs.get(jobId);
    if (text === undefined) return send(response, 404, "BlobNotFound", "text/plain");
    send(response, 200, text, "text/plain; charset=utf-8");
  });
  const logOrigin = await listen(logServer);

  const fake: FakeGithub = {
    url: "",
    logOrigin,
    runs,
    requests,
    logRequests,
    logs,
    logFailures,
    nextRunId: 9_300_000_001,
    run(id) {
      const run = runs.get(id);
      if (!run) throw new Error(`the fake has no run ${id}`);
      return run;
    },
    attempt(id, attempt) {
      const run = fake.run(id);
      const found = run.attempts[(attempt ?? run.attempts.length) - 1];
      if (!found) throw new Error(`the fake has no attempt ${attempt} of run ${id}`);
      return found;
    },
    update(id, changes, attempt) {
      Object.assign(fake.attempt(id, attempt), changes);
    },
    requestsTo(method, pathPattern) {
      return requests.filter((entry) => entry.method === method && pathPattern.test(entry.path));
    },
    holdDispatchAnswer: undefined,
    async close() {
      await Promise.all([close(apiServer), close(logServer)]);
    },
  };

  const apiServer = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const body = await readJson(request);
    requests.push({
      method: request.method ?? "GET",
      path: url.pathname,
      query: url.search,
      authorization: request.headers.authorization,
      body,
    });
    if (request.method === "POST" && url.pathname.endsWith("/dispatches")) await fake.holdDispatchAnswer?.();
    try {
      route(request.method ?? "GET", url.pathname, body, response);
    } catch (error) {
      send(response, 500, { message: String(error) });
    }
  });
  apiOrigin = await listen(apiServer);
  fake.url = apiOrigin;

  function route(method: string, path: string, body: any, response: ServerResponse): void {
    const prefix = `/repos/${fakeOwner}/${fakeRepo}/actions`;
    let match: RegExpExecArray | null;
    if (method === "POST" && (match = new RegExp(`^${prefix}/workflows/([^/]+)/dispatches$`).exec(path))) {
      const id = fake.nextRunId++;
      const createdAt = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      runs.set(id, {
        id,
        name: "Deploy",
        path: `.github/workflows/${decodeURIComponent(match[1]!)}`,
        headSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
        headBranch: String(body?.ref ?? "main"),
        event: "workflow_dispatch",
        createdAt,
        attempts: [newAttempt(createdAt)],
        reviews: [],
        annotations: new Map(),
        artifacts: [],
      });
      if (body?.return_run_details !== true) return send(response, 204, "");
      return send(response, 200, {
        workflow_run_id: id,
        run_url: `${apiOrigin}${prefix}/runs/${id}`,
        html_url: `https://github.com/${fakeOwner}/${fakeRepo}/actions/runs/${id}`,
      });
    }
    if ((match = new RegExp(`^${prefix}/jobs/(\\d+)/logs$`).exec(path))) {
      const jobId = Number(match[1]);
      if (!logs.has(jobId)) return send(response, 404, notFound());
      // GitHub answers with a redirect to a short-lived, pre-signed blob URL on another host.
      response.writeHead(302, { location: `${logOrigin}/job-logs/${jobId}` });
      return void response.end();
    }
    if ((match = new RegExp(`^/repos/${fakeOwner}/${fakeRepo}/check-runs/(\\d+)/annotations$`).exec(path))) {
      const messages = [...runs.values()].flatMap((run) => run.annotations.get(Number(match![1])) ?? []);
      return send(
        response,
        200,
        messages.map((message) => annotation(message)),
      );
    }
    if (!(match = new RegExp(`^${prefix}/runs/(\\d+)(/.*)?$`).exec(path))) return send(response, 404, notFound());
    const run = runs.get(Number(match[1]));
    if (!run) return send(response, 404, notFound());
    const rest = match[2] ?? "";
    const latest = run.attempts.length;

    if (method === "GET" && rest === "") return send(response, 200, runJson(run, latest));
    if (method === "GET" && (match = /^\/attempts\/(\d+)(\/jobs)?$/.exec(rest))) {
      const number = Number(match[1]);
      const attempt = run.attempts[number - 1];
      if (!attempt) return send(response, 404, notFound());
      if (match[2])
        return send(response, 200, {
          total_count: attempt.jobs.length,
          jobs: attempt.jobs.map((job) => jobJson(run, number, job)),
        });
      return send(response, 200, runJson(run, number));
    }
    if (method === "GET" && rest === "/artifacts") {
      return send(response, 200, {
        total_count: run.artifacts.length,
        artifacts: run.artifacts.map((artifact) => artifactJson(run, artifact)),
      });
    }
    if (method === "GET" && rest === "/pending_deployments") {
      return send(response, 200, run.attempts[latest - 1]!.pendingDeployments.map(pendingDeploymentJson));
    }
    if (method === "GET" && rest === "/approvals") return send(response, 200, run.reviews.map(reviewJson));
    if (method === "POST" && rest === "/pending_deployments") {
      const attempt = run.attempts[latest - 1]!;
      const ids: number[] = body?.environment_ids ?? [];
      const waiting = attempt.pendingDeployments.filter((deployment) => ids.includes(deployment.environmentId));
      if (waiting.length === 0)
        return send(response, 422, { message: "No pending deployment requests to approve or reject" });
      run.reviews.push({ state: body.state, comment: body.comment, environmentIds: ids });
      attempt.pendingDeployments = attempt.pendingDeployments.filter(
        (deployment) => !ids.includes(deployment.environmentId),
      );
      return send(
        response,
        200,
        waiting.map((deployment) => ({
          id: 1_000 + deployment.environmentId,
          environment: deployment.environmentName,
        })),
      );
    }
    if (method === "POST" && (rest === "/cancel" || rest === "/force-cancel")) {
      const attempt = run.attempts[latest - 1]!;
      if (attempt.status === "completed")
        return send(response, 409, { message: "Cannot cancel a workflow run that is completed." });
      return send(response, 202, {});
    }
    if (method === "POST" && (rest === "/rerun" || rest === "/rerun-failed-jobs")) {
      const attempt = run.attempts[latest - 1]!;
      if (attempt.status !== "completed") return send(response, 403, { message: "This workflow is already running" });
      run.attempts.push(newAttempt(new Date().toISOString().replace(/\.\d+Z$/, "Z")));
      return send(response, 201, {});
    }
    send(response, 404, notFound());
  }

  function runJson(run: FakeRun, number: number): Record<string, unknown> {
    const attempt = run.attempts[number - 1]!;
    const runUrl = `${apiOrigin}/repos/${fakeOwner}/${fakeRepo}/actions/runs/${run.id}`;
    return {
      id: run.id,
      name: run.name,
      node_id: "WFR_kwLOAbCdEf8AAAACKm9x1A",
      head_branch: run.headBranch,
      head_sha: run.headSha,
      path: run.path,
      display_title: run.name,
      run_number: 311,
      event: run.event,
      status: attempt.status,
      conclusion: attempt.conclusion,
      workflow_id: 48213399,
      url: runUrl,
      html_url: `https://github.com/${fakeOwner}/${fakeRepo}/actions/runs/${run.id}${number > 1 ? `/attempts/${number}` : ""}`,
      created_at: run.createdAt,
      updated_at: attempt.updatedAt,
      run_attempt: number,
      run_started_at: attempt.runStartedAt,
      actor: { login: "octocat", id: 583231, type: "User" },
      jobs_url: `${runUrl}/jobs`,
      logs_url: `${runUrl}/logs`,
      cancel_url: `${runUrl}/cancel`,
      rerun_url: `${runUrl}/rerun`,
      previous_attempt_url: number > 1 ? `${runUrl}/attempts/${number - 1}` : null,
      repository: { id: 112233445, name: fakeRepo, full_name: `${fakeOwner}/${fakeRepo}`, private: true },
    };
  }

  return fake;
}

function jobJson(run: FakeRun, attempt: number, job: FakeJob): Record<string, unknown> {
  return {
    id: job.id,
    run_id: run.id,
    run_attempt: attempt,
    workflow_name: run.name,
    head_branch: run.headBranch,
    name: job.name,
    status: job.status,
    conclusion: job.conclusion ?? null,
    started_at: job.started_at ?? startedAt,
    completed_at: job.completed_at ?? null,
    html_url: `https://github.com/${fakeOwner}/${fakeRepo}/actions/runs/${run.id}/job/${job.id}`,
    steps: (job.steps ?? []).map((step, index) => ({
      name: step.name,
      status: step.status,
      conclusion: step.conclusion ?? null,
      number: index + 1,
      started_at: step.started_at ?? null,
      completed_at: step.completed_at ?? null,
    })),
    labels: ["ubuntu-latest"],
    runner_name: "GitHub Actions 7",
    runner_group_name: "GitHub Actions",
  };
}

function pendingDeploymentJson(deployment: FakePendingDeployment): Record<string, unknown> {
  return {
    environment: {
      id: deployment.environmentId,
      node_id: "MDExOkVudmlyb25tZW50MTYxMDg4MDY4",
      name: deployment.environmentName,
      url: `https://api.github.com/repos/${fakeOwner}/${fakeRepo}/environments/${deployment.environmentName}`,
      html_url: `https://github.com/${fakeOwner}/${fakeRepo}/deployments/activity_log?environments_filter=${deployment.environmentName}`,
    },
    wait_timer: 0,
    wait_timer_started_at: null,
    current_user_can_approve: deployment.canApprove,
    reviewers: (deployment.reviewers ?? []).map((reviewer) =>
      reviewer.type === "User"
        ? { type: "User", reviewer: { login: reviewer.login, id: 583231, type: "User" } }
        : { type: "Team", reviewer: { name: reviewer.name, slug: reviewer.slug, id: 1200345 } },
    ),
  };
}

function reviewJson(review: FakeRun["reviews"][number]): Record<string, unknown> {
  return {
    state: review.state,
    comment: review.comment,
    environments: review.environmentIds.map((id) => ({
      id,
      node_id: "MDExOkVudmlyb25tZW50",
      name: `environment-${id}`,
    })),
    user: { login: "octocat", id: 583231, type: "User", site_admin: false },
  };
}

function artifactJson(run: FakeRun, artifact: FakeRun["artifacts"][number]): Record<string, unknown> {
  return {
    id: artifact.id,
    name: artifact.name,
    size_in_bytes: artifact.sizeInBytes,
    url: `https://api.github.com/repos/${fakeOwner}/${fakeRepo}/actions/artifacts/${artifact.id}`,
    archive_download_url: `https://api.github.com/repos/${fakeOwner}/${fakeRepo}/actions/artifacts/${artifact.id}/zip`,
    expired: false,
    created_at: artifact.createdAt,
    updated_at: artifact.createdAt,
    expires_at: "2027-02-18T10:03:30Z",
    workflow_run: { id: run.id, repository_id: 112233445, head_branch: run.headBranch, head_sha: run.headSha },
  };
}

function annotation(message: string): Record<string, unknown> {
  return {
    path: ".github",
    start_line: 1,
    end_line: 1,
    start_column: null,
    end_column: null,
    annotation_level: "failure",
    title: "",
    message,
    raw_details: null,
  };
}

function notFound() {
  return { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" };
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  contentType = "application/json; charset=utf-8",
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, {
    "content-type": contentType,
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4990",
    "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
    "x-github-api-version-selected": "2022-11-28",
  });
  response.end(status === 204 ? undefined : text);
}

async function readJson(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
