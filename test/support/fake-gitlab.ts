import { MockAgent } from "undici";

/**
 * A stateful GitLab REST API v4 behind an undici MockAgent: pipelines with jobs, traces and blocked
 * deployments that a test moves between states, and every request recorded. The adapter reaches it
 * through its injected dispatcher; nothing leaves the process.
 */

export const fakeGitlabOrigin = "https://gitlab.internal.example";

export interface FakeGitlabJob {
  id: number;
  name: string;
  stage: string;
  status: string;
  /** A job a retry replaced: GitLab lists it only with `include_retried=true`. */
  retried?: boolean;
  allow_failure?: boolean;
  failure_reason?: string | null;
  /** GitLab's timestamps (ISO 8601, UTC): which run of a retried pipeline a job belongs to is told by them. */
  created_at?: string;
  started_at?: string | null;
  finished_at?: string | null;
  artifacts?: Array<{ file_type: string; filename: string; size: number }>;
  trace?: string;
}

export interface FakeGitlabPipeline {
  id: number;
  status: string;
  ref: string;
  sha: string;
  jobs: FakeGitlabJob[];
  deployments: Array<{ id: number; jobId: number; environment: string; approvals: number }>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

export interface FakeGitlab {
  agent: MockAgent;
  baseUrl: string;
  pipelines: Map<number, FakeGitlabPipeline>;
  requests: RecordedRequest[];
  requestsTo(method: string, pattern: RegExp): RecordedRequest[];
  /** When set, every approval POST is answered with it (GitLab answers 400 for each refusal). */
  approvalRefusal: { status: number; message: string } | undefined;
  close(): Promise<void>;
}

export function startFakeGitlab(project: string, options: { firstPipelineId?: number } = {}): FakeGitlab {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pipelines = new Map<number, FakeGitlabPipeline>();
  const requests: RecordedRequest[] = [];
  let nextPipelineId = options.firstPipelineId ?? 500_001;
  const projectPrefix = `/api/v4/projects/${encodeURIComponent(project)}`;

  const pipelineAnswer = (pipeline: FakeGitlabPipeline) => ({
    id: pipeline.id,
    iid: pipeline.id - 500_000,
    status: pipeline.status,
    ref: pipeline.ref,
    sha: pipeline.sha,
    web_url: `${fakeGitlabOrigin}/${project}/-/pipelines/${pipeline.id}`,
    updated_at: "2026-11-30T10:00:00.000Z",
    finished_at: ["success", "failed", "canceled", "skipped"].includes(pipeline.status)
      ? "2026-11-30T10:05:00.000Z"
      : null,
    duration: null,
  });

  const route = (method: string, path: string, body: unknown): { status: number; body: unknown } => {
    const [pathname = "", search = ""] = path.split("?");
    if (!pathname.startsWith(projectPrefix)) return { status: 404, body: { message: "404 Project Not Found" } };
    const rest = pathname.slice(projectPrefix.length);
    let match: RegExpExecArray | null;
    if (method === "POST" && rest === "/pipeline") {
      const id = nextPipelineId++;
      const created: FakeGitlabPipeline = {
        id,
        status: "created",
        ref: (body as { ref: string }).ref,
        sha: "d6f0a1b2c3d4e5f60718293a4b5c6d7e8f901234",
        jobs: [],
        deployments: [],
      };
      pipelines.set(id, created);
      return { status: 201, body: pipelineAnswer(created) };
    }
    if (method === "GET" && rest === "/pipelines") {
      const sha = new URLSearchParams(search).get("sha");
      const newest = [...pipelines.values()]
        .filter((pipeline) => !sha || pipeline.sha.startsWith(sha))
        .sort((a, b) => b.id - a.id);
      return {
        status: 200,
        body: newest.slice(0, 1).map((pipeline) => ({ id: pipeline.id, status: pipeline.status })),
      };
    }
    if ((match = /^\/pipelines\/(\d+)(\/jobs|\/cancel|\/retry)?$/.exec(rest))) {
      const pipeline = pipelines.get(Number(match[1]));
      if (!pipeline) return { status: 404, body: { message: "404 Not found" } };
      if (method === "GET" && !match[2]) return { status: 200, body: pipelineAnswer(pipeline) };
      if (method === "GET" && match[2] === "/jobs") {
        const withRetried = new URLSearchParams(search).get("include_retried") === "true";
        // GitLab lists a pipeline's jobs newest first.
        const listed = pipeline.jobs.filter((job) => withRetried || !job.retried).sort((a, b) => b.id - a.id);
        return {
          status: 200,
          body: listed.map(({ trace: _trace, ...job }) => ({ ...job, artifacts: job.artifacts ?? [] })),
        };
      }
      if (method === "POST" && match[2] === "/cancel") {
        // GitLab cancels running and pending jobs only: a pipeline waiting at a manual job stays as it is.
        if (pipeline.status !== "manual") pipeline.status = "canceling";
        return { status: 200, body: pipelineAnswer(pipeline) };
      }
      if (method === "POST" && match[2] === "/retry") return { status: 201, body: pipelineAnswer(pipeline) };
    }
    if (method === "GET" && rest === "/deployments") {
      const blocked = [...pipelines.values()].flatMap((pipeline) =>
        pipeline.deployments.map((deployment) => ({
          id: deployment.id,
          status: "blocked",
          environment: { name: deployment.environment },
          deployable: {
            id: deployment.jobId,
            name: pipeline.jobs.find((job) => job.id === deployment.jobId)?.name,
            pipeline: { id: pipeline.id },
          },
          approvals: Array.from({ length: deployment.approvals }, () => ({ status: "approved" })),
        })),
      );
      return { status: 200, body: blocked };
    }
    if (method === "POST" && (match = /^\/deployments\/(\d+)\/approval$/.exec(rest))) {
      const refusal = fake.approvalRefusal;
      if (refusal) return { status: refusal.status, body: { message: refusal.message } };
      return { status: 201, body: { status: (body as { status: string }).status } };
    }
    if (method === "POST" && (match = /^\/jobs\/(\d+)\/play$/.exec(rest)))
      return { status: 200, body: { id: Number(match[1]), status: "pending" } };
    if (method === "GET" && (match = /^\/jobs\/(\d+)\/trace$/.exec(rest))) {
      const job = [...pipelines.values()]
        .flatMap((pipeline) => pipeline.jobs)
        .find((candidate) => candidate.id === Number(match![1]));
      return job?.trace !== undefined
        ? { status: 200, body: job.trace }
        : { status: 404, body: { message: "404 Not found" } };
    }
    return { status: 404, body: { message: "404 Not found" } };
  };

  agent
    .get(fakeGitlabOrigin)
    .intercept({ path: () => true, method: (method: string) => method === "GET" || method === "POST" })
    .reply((options) => {
      const text = typeof options.body === "string" ? options.body : "";
      const body = text === "" ? undefined : (JSON.parse(text) as unknown);
      requests.push({
        method: options.method,
        path: options.path,
        body,
        headers: { ...(options.headers as Record<string, string>) },
      });
      const answer = route(options.method, options.path, body);
      const isText = typeof answer.body === "string";
      return {
        statusCode: answer.status,
        data: isText ? (answer.body as string) : JSON.stringify(answer.body),
        responseOptions: { headers: { "content-type": isText ? "text/plain" : "application/json" } },
      };
    })
    .persist();

  const fake: FakeGitlab = {
    agent,
    baseUrl: `${fakeGitlabOrigin}/api/v4`,
    pipelines,
    requests,
    requestsTo: (method, pattern) =>
      requests.filter((request) => request.method === method && pattern.test(request.path)),
    approvalRefusal: undefined,
    close: () => agent.close(),
  };
  return fake;
}
