import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback stand-in for the AWS Batch REST-JSON API (SubmitJob, DescribeJobs, TerminateJob, ListJobs by
 * job name or by array parent),
 * for the AWS Batch adapter's `endpoint` option: the adapter then runs its real SDK client (SigV4 signing,
 * serialisation, error parsing) behind a real jobtasks server. Jobs are shaped like DescribeJobs entries
 * (trimmed); the test moves them by hand. Nothing here checks signatures.
 */

export const fakeAccount = "123456789012";
export const fakeRegion = "us-east-1";

export interface FakeBatchJob {
  jobId: string;
  jobName: string;
  jobQueue: string;
  jobDefinition: string;
  status: string;
  /** update() clears it with undefined, as Batch drops the reason once a job moves on. */
  statusReason?: string | undefined;
  createdAt: number;
  startedAt?: number;
  stoppedAt?: number;
  exitCode?: number;
  containerReason?: string;
  parameters: Record<string, string>;
  tags: Record<string, string>;
  arraySize?: number;
  arraySummary?: Record<string, number>;
  /** Children an array parent's ListJobs (arrayJobId) returns; Batch names them `<parentId>:<index>`. */
  arrayChildren?: FakeArrayChild[];
  retryAttempts?: number;
  isCancelled?: boolean;
  isTerminated?: boolean;
}

export interface FakeArrayChild {
  index: number;
  status: string;
  statusReason?: string;
  exitCode?: number;
  containerReason?: string;
}

export interface RecordedBatchCall {
  operation: string;
  body: any;
  authorization: string | undefined;
}

export interface FakeAwsBatch {
  /** The endpoint to give the adapter. */
  url: string;
  jobs: Map<string, FakeBatchJob>;
  calls: RecordedBatchCall[];
  callsTo(operation: "submitjob" | "describejobs" | "terminatejob" | "listjobs"): RecordedBatchCall[];
  /** A job submitted elsewhere (the console, another tool), for watch_job. */
  addJob(job: Partial<FakeBatchJob> & { jobName: string }): FakeBatchJob;
  update(jobId: string, changes: Partial<FakeBatchJob>): void;
  /**
   * Answer DescribeJobs for this id with an AWS error instead (status, code, message). "{authorization}" in
   * the message is replaced by the request's Authorization header, as a proxy or a signature error echoes
   * the signed request back.
   */
  refuseDescribe: Map<string, { status: number; code: string; message: string }>;
  /**
   * When set, SubmitJob creates the job as soon as the request arrives (as AWS does) and answers only once
   * the returned promise settles: a submit in flight, for tests of a client that leaves meanwhile.
   */
  holdSubmitAnswer: ((job: FakeBatchJob) => Promise<void>) | undefined;
  close(): Promise<void>;
}

export async function startFakeAwsBatch(): Promise<FakeAwsBatch> {
  const jobs = new Map<string, FakeBatchJob>();
  const calls: RecordedBatchCall[] = [];
  const refuseDescribe: FakeAwsBatch["refuseDescribe"] = new Map();

  const addJob = (job: Partial<FakeBatchJob> & { jobName: string }): FakeBatchJob => {
    const full: FakeBatchJob = {
      jobId: randomUUID(),
      jobQueue: "render-queue",
      jobDefinition: "blender-render:3",
      status: "SUBMITTED",
      createdAt: Date.now(),
      parameters: {},
      tags: {},
      ...job,
    };
    jobs.set(full.jobId, full);
    return full;
  };

  const server = createServer(async (request, response) => {
    const operation = (request.url ?? "").replace(/^\/v1\//, "").replace(/\?.*$/, "");
    const body = await readJson(request);
    calls.push({ operation, body, authorization: request.headers.authorization });
    switch (operation) {
      case "submitjob": {
        const job = addJob({
          jobName: body.jobName,
          jobQueue: body.jobQueue,
          jobDefinition: body.jobDefinition,
          parameters: body.parameters ?? {},
          tags: body.tags ?? {},
          ...(body.arrayProperties?.size ? { arraySize: body.arrayProperties.size } : {}),
          ...(body.retryStrategy?.attempts ? { retryAttempts: body.retryStrategy.attempts } : {}),
        });
        await fake.holdSubmitAnswer?.(job);
        return send(response, 200, { jobArn: jobArn(job.jobId), jobName: job.jobName, jobId: job.jobId });
      }
      case "describejobs": {
        const ids: string[] = body?.jobs ?? [];
        for (const id of ids) {
          const refusal = refuseDescribe.get(id);
          if (refusal) {
            const message = refusal.message.replace("{authorization}", request.headers.authorization ?? "");
            return sendError(response, refusal.status, refusal.code, message);
          }
        }
        return send(response, 200, { jobs: ids.flatMap((id) => (jobs.has(id) ? [describe(jobs.get(id)!)] : [])) });
      }
      case "terminatejob": {
        if (!jobs.has(body?.jobId)) return sendError(response, 400, "ClientException", `Job ${body?.jobId} not found`);
        // Batch acts asynchronously: the test decides when the job shows FAILED.
        return send(response, 200, {});
      }
      case "listjobs": {
        if (body?.arrayJobId !== undefined) return send(response, 200, listChildren(jobs.get(body.arrayJobId), body));
        const name = body?.filters?.[0]?.values?.[0];
        const found = [...jobs.values()].filter((job) => job.jobName === name);
        return send(response, 200, {
          jobSummaryList: found.map((job) => ({
            jobArn: jobArn(job.jobId),
            jobId: job.jobId,
            jobName: job.jobName,
            createdAt: job.createdAt,
            status: job.status,
          })),
        });
      }
      default:
        return sendError(response, 404, "UnknownOperationException", `unknown operation ${operation}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  const fake: FakeAwsBatch = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    jobs,
    calls,
    callsTo: (operation) => calls.filter((call) => call.operation === operation),
    addJob,
    update(jobId, changes) {
      const job = jobs.get(jobId);
      if (!job) throw new Error(`the fake has no job ${jobId}`);
      Object.assign(job, changes);
    },
    refuseDescribe,
    holdSubmitAnswer: undefined,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** ListJobs for an array's children: filtered by jobStatus (RUNNING when absent, as AWS does), paged by maxResults. */
function listChildren(parent: FakeBatchJob | undefined, body: any): Record<string, unknown> {
  const status = body.jobStatus ?? "RUNNING";
  const matching = (parent?.arrayChildren ?? []).filter((child) => child.status === status);
  const offset = Number(body.nextToken ?? 0);
  const pageSize = Math.min(body.maxResults ?? 1000, 1000);
  const page = matching.slice(offset, offset + pageSize);
  return {
    jobSummaryList: page.map((child) => {
      const jobId = `${parent!.jobId}:${child.index}`;
      const container = {
        ...(child.exitCode !== undefined ? { exitCode: child.exitCode } : {}),
        ...(child.containerReason !== undefined ? { reason: child.containerReason } : {}),
      };
      return {
        jobArn: jobArn(jobId),
        jobId,
        jobName: parent!.jobName,
        createdAt: parent!.createdAt,
        status: child.status,
        ...(child.statusReason !== undefined ? { statusReason: child.statusReason } : {}),
        ...(Object.keys(container).length > 0 ? { container } : {}),
        arrayProperties: { index: child.index },
        jobDefinition: `arn:aws:batch:${fakeRegion}:${fakeAccount}:job-definition/${parent!.jobDefinition}`,
      };
    }),
    ...(offset + pageSize < matching.length ? { nextToken: String(offset + pageSize) } : {}),
  };
}

function jobArn(jobId: string): string {
  return `arn:aws:batch:${fakeRegion}:${fakeAccount}:job/${jobId}`;
}

/** A DescribeJobs entry, shaped like AWS's. */
function describe(job: FakeBatchJob): Record<string, unknown> {
  const finished = job.status === "SUCCEEDED" || job.status === "FAILED";
  const logStreamName = `blender-render/default/${job.jobId.replace(/-/g, "")}`;
  // An array parent never has attempts of its own: its children do.
  const attempts =
    finished && job.startedAt !== undefined && job.arraySize === undefined
      ? [
          {
            container: {
              taskArn: `arn:aws:ecs:${fakeRegion}:${fakeAccount}:task/render-ce_Batch_1a2b3c/${job.jobId.replace(/-/g, "")}`,
              ...(job.exitCode !== undefined ? { exitCode: job.exitCode } : {}),
              ...(job.containerReason !== undefined ? { reason: job.containerReason } : {}),
              logStreamName,
              networkInterfaces: [],
            },
            startedAt: job.startedAt,
            stoppedAt: job.stoppedAt,
            statusReason: "Essential container in task exited",
          },
        ]
      : [];
  return {
    jobArn: jobArn(job.jobId),
    jobName: job.jobName,
    jobId: job.jobId,
    jobQueue: `arn:aws:batch:${fakeRegion}:${fakeAccount}:job-queue/${job.jobQueue}`,
    status: job.status,
    ...(job.statusReason !== undefined ? { statusReason: job.statusReason } : {}),
    attempts,
    createdAt: job.createdAt,
    ...(job.retryAttempts !== undefined ? { retryStrategy: { attempts: job.retryAttempts, evaluateOnExit: [] } } : {}),
    ...(job.startedAt !== undefined ? { startedAt: job.startedAt } : {}),
    ...(job.stoppedAt !== undefined ? { stoppedAt: job.stoppedAt } : {}),
    dependsOn: [],
    jobDefinition: `arn:aws:batch:${fakeRegion}:${fakeAccount}:job-definition/${job.jobDefinition}`,
    parameters: job.parameters,
    ...(job.arraySize !== undefined
      ? {
          arrayProperties: {
            statusSummary: {
              STARTING: 0,
              FAILED: 0,
              RUNNING: 0,
              SUCCEEDED: 0,
              RUNNABLE: 0,
              SUBMITTED: 0,
              PENDING: 0,
              ...job.arraySummary,
            },
            statusSummaryLastUpdatedAt: Date.now(),
            size: job.arraySize,
          },
        }
      : {}),
    container: {
      image: "public.ecr.aws/example/blender:4.2",
      command: ["render", "Ref::scene", "Ref::quality"],
      volumes: [],
      environment: [],
      mountPoints: [],
      ulimits: [],
      ...(job.exitCode !== undefined ? { exitCode: job.exitCode } : {}),
      ...(job.containerReason !== undefined ? { reason: job.containerReason } : {}),
      ...(job.startedAt !== undefined ? { logStreamName } : {}),
      networkInterfaces: [],
      resourceRequirements: [
        { value: "2", type: "VCPU" },
        { value: "4096", type: "MEMORY" },
      ],
      secrets: [],
    },
    tags: job.tags,
    propagateTags: false,
    platformCapabilities: ["EC2"],
    eksAttempts: [],
    isCancelled: job.isCancelled ?? false,
    isTerminated: job.isTerminated ?? false,
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "x-amzn-requestid": randomUUID() });
  response.end(JSON.stringify(body));
}

/** An AWS REST-JSON error: the code in x-amzn-ErrorType, the message in the body. */
function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${code}:http://internal.amazon.com/coral/com.amazonaws.batch/`,
    "x-amzn-requestid": randomUUID(),
  });
  response.end(JSON.stringify({ __type: code, message }));
}

async function readJson(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text);
}
