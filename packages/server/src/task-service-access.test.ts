import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskProtocolError } from "./protocol-error.js";
import { TaskService, type CallerContext } from "./task-service.js";
import { AccessPolicy, type GrantedScopes } from "./access-policy.js";
import type { CreateTaskResult } from "./task-shape.js";
import {
  approvalRequest,
  createScriptedAdapter,
  inputRequiredSnapshot,
} from "../../../test/support/scripted-adapter.js";

/**
 * The scopes a caller holds, as the task service applies them whatever the transport: tools, their tasks
 * and approvals. Over HTTP most of these are refused earlier with a 403 challenge; the service is the
 * line that holds when they are not (a batch, a handle tool, an embedding).
 */

const secret = "task-service-access-secret-0123456789abcdef";

function setup(access: ConstructorParameters<typeof AccessPolicy>[0], jobSecrets?: readonly string[]) {
  const jobs = createScriptedAdapter({ toolName: "run_job" });
  if (jobSecrets) (jobs.adapter as { secrets?: readonly string[] }).secrets = jobSecrets;
  const deploys = createScriptedAdapter({ toolName: "deploy_prod" });
  const service = new TaskService({
    adapters: [
      { name: "jobs", adapter: jobs.adapter },
      { name: "deploys", adapter: deploys.adapter },
    ],
    sealer: new TaskIdSealer({ secret }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    access: new AccessPolicy(access),
  });
  const caller = (scopes: GrantedScopes, tasksDeclared = true): CallerContext & { tasksDeclared: boolean } => ({
    principal: "alice",
    signal: new AbortController().signal,
    tasksDeclared,
    ...(scopes !== undefined ? { scopes } : {}),
  });
  return { jobs, deploys, service, caller };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as TaskProtocolError,
  );

describe("scopes in the task service", () => {
  it("refuses a tool whose scope the caller lacks with -32602 naming the scope, before any start", async () => {
    const { service, caller, deploys } = setup({ toolScopes: { deploy_prod: ["deploy:prod"] } });
    const error = await refusal(service.callTool("deploy_prod", {}, caller(new Set(["jobs:run"]))));
    expect(error).toBeInstanceOf(TaskProtocolError);
    expect(error?.code).toBe(-32602);
    expect(error?.message).toBe(
      'Insufficient scope: tool deploy_prod needs the scope "deploy:prod", which this caller\'s token does not grant',
    );
    expect(deploys.calls.start).toBe(0);
  });

  it("lists only the tools the caller may call, and every tool to a caller holding every scope (stdio)", () => {
    const { service } = setup({ defaultToolScopes: ["jobs:run"], toolScopes: { deploy_prod: ["deploy:prod"] } });
    const names = (scopes: GrantedScopes) => service.listTools(true, scopes).map((tool) => tool.name);
    expect(names(new Set(["jobs:run"]))).toEqual(["run_job"]);
    expect(names(new Set())).toEqual([]);
    expect(names(new Set(["jobs:run", "deploy:prod"]))).toEqual(["run_job", "deploy_prod"]);
    expect(names(undefined)).toEqual(["run_job", "deploy_prod"]);
  });

  it("tasks/get and tasks/cancel need the scope of the tool that started the task", async () => {
    const { service, caller, deploys } = setup({ toolScopes: { deploy_prod: ["deploy:prod"] } });
    const { taskId } = (await service.callTool(
      "deploy_prod",
      {},
      caller(new Set(["deploy:prod"])),
    )) as CreateTaskResult;
    const narrow = caller(new Set(["jobs:run"]));
    expect((await refusal(service.getTask(taskId, narrow)))?.message).toContain("tasks of deploy_prod need");
    expect((await refusal(service.cancelTask(taskId, narrow)))?.message).toContain('"deploy:prod"');
    expect(deploys.calls.cancel).toBe(0);
    expect(service.missingTaskScopes(taskId, narrow)).toEqual(["deploy:prod"]);
    expect(service.missingTaskScopes(taskId, { principal: "bob", scopes: undefined })).toBeUndefined();
    expect((await service.getTask(taskId, caller(undefined))).status).toBe("working");
  });

  it("task_answer to an approval without the approval scope is a tool error naming the scope and the review page", async () => {
    const { service, caller, jobs } = setup({
      approvalScope: "jobs:approve",
      adapterApprovalScopes: { deploys: "deploy:approve" },
    });
    const agent = caller(new Set(["jobs:run"]), false);
    const handle = await service.callTool("run_job", {}, agent);
    const taskId = (handle as unknown as { structuredContent: { taskId: string } }).structuredContent.taskId;
    const job = jobs.onlyJob();
    jobs.update(job, {
      ...inputRequiredSnapshot({ gate: approvalRequest("Deploy? Review at https://ci.example.com/runs/1.") }),
      approvalKeys: ["gate"],
    });
    const answer = await service.callTool(
      "task_answer",
      { taskId, key: "gate", action: "accept", content: { approve: true } },
      agent,
    );
    expect(answer).toMatchObject({ isError: true });
    const text = (answer as { content: Array<{ text: string }> }).content[0]!.text;
    expect(text).toContain('needs the scope "jobs:approve"');
    // The link, without the sentence's full stop.
    expect(text).toContain("approve at https://ci.example.com/runs/1,");
    expect(job.responses).toEqual([]);
  });

  it("an adapter instance's own approval scope replaces the server's", async () => {
    const { service, caller, deploys } = setup({
      approvalScope: "jobs:approve",
      adapterApprovalScopes: { deploys: "deploy:approve" },
    });
    const { taskId } = (await service.callTool(
      "deploy_prod",
      {},
      caller(new Set(["jobs:approve"])),
    )) as CreateTaskResult;
    const job = deploys.onlyJob();
    deploys.update(job, { ...inputRequiredSnapshot({ gate: approvalRequest() }), approvalKeys: ["gate"] });
    const answers = { gate: { action: "accept", content: { approve: true } } };
    const error = await refusal(service.updateTask(taskId, answers, caller(new Set(["jobs:approve"]))));
    expect(error?.message).toContain('needs the scope "deploy:approve"');
    expect(await service.updateTask(taskId, answers, caller(new Set(["deploy:approve"])))).toEqual(["gate"]);
  });

  it("an approval whose key holds a declared secret stays an approval: its marking and its key are redacted apart", async () => {
    // The server redacts an adapter's snapshots by value: approvalKeys' strings, not inputRequests' keys.
    const { service, caller, jobs } = setup({ approvalScope: "jobs:approve" }, ["upstream-secret-value"]);
    const agent = caller(new Set(["jobs:run"]));
    const { taskId } = (await service.callTool("run_job", {}, agent)) as CreateTaskResult;
    const job = jobs.onlyJob();
    const key = "gate-upstream-secret-value";
    jobs.update(job, { ...inputRequiredSnapshot({ [key]: approvalRequest() }), approvalKeys: [key] });
    const answers = { [key]: { action: "accept", content: { approve: true } } };
    expect((await refusal(service.updateTask(taskId, answers, agent)))?.message).toContain(
      'needs the scope "jobs:approve"',
    );
    expect(job.responses).toEqual([]);
  });

  it("refuses scopes for a tool or an adapter instance the server does not have, naming the field", () => {
    expect(() => setup({ toolScopes: { deploy_production: ["deploy:prod"] } })).toThrow(ConfigError);
    expect(() => setup({ toolScopes: { deploy_production: ["deploy:prod"] } })).toThrow(
      /server\.auth\.toolScopes\.deploy_production/,
    );
    expect(() => setup({ adapterApprovalScopes: { nowhere: "x" } })).toThrow(
      /server\.auth\.adapterApprovalScopes\.nowhere/,
    );
  });
});
