import { afterEach, describe, expect, it } from "vitest";
import { AccessPolicy } from "@jobtasks/server";
import { rawCall, type RawCallOptions } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { approvalRequest, createScriptedAdapter, inputRequiredSnapshot } from "./support/scripted-adapter.js";

/**
 * Scopes with static tokens: a token given a list of scopes holds only those (tools/list, tools/call, the
 * approval scope); a token without a list holds every scope, as before scopes existed.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const agentToken = "agent-token-0123456789abcdef";
const personToken = "person-token-0123456789abcdef";
const adminToken = "admin-token-0123456789abcdef";

async function serve() {
  const jobs = createScriptedAdapter({ toolName: "run_job" });
  const deploys = createScriptedAdapter({ toolName: "deploy_prod" });
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [
        { name: "jobs", adapter: jobs.adapter },
        { name: "deploys", adapter: deploys.adapter },
      ],
      tokens: `agent:${agentToken},person:${personToken},admin:${adminToken}`,
      http: { tokenScopes: { agent: ["jobs:run"], person: ["jobs:run", "jobs:approve"] } },
      service: {
        access: new AccessPolicy({ toolScopes: { deploy_prod: ["deploy:prod"] }, approvalScope: "jobs:approve" }),
      },
    }),
  );
  const call = (method: string, params: Record<string, unknown>, options: RawCallOptions) =>
    rawCall(server.url, method, params, options);
  return { jobs, deploys, call };
}

describe("scopes of static tokens", () => {
  it("lists and serves only the tools a token's scopes allow; a token without a list holds every scope", async () => {
    const { call, deploys } = await serve();
    const names = async (token: string) =>
      ((await call("tools/list", {}, { token })).body?.result?.["tools"] as Array<{ name: string }>).map(
        (tool) => tool.name,
      );
    expect(await names(agentToken)).toEqual(["run_job"]);
    expect(await names(adminToken)).toEqual(["run_job", "deploy_prod"]);
    const refused = await call("tools/call", { name: "deploy_prod", arguments: {} }, { token: agentToken });
    expect(refused.httpStatus).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_scope", scope="deploy:prod", realm="jobtasks", error_description="This request needs the scope deploy:prod"',
    );
    expect(deploys.calls.start).toBe(0);
    expect((await call("tools/call", { name: "deploy_prod", arguments: {} }, { token: adminToken })).httpStatus).toBe(
      200,
    );
  });

  it("an approval needs the approval scope, whoever started the task; tasks/update answers -32602 naming it", async () => {
    const { call, jobs } = await serve();
    // The agent may run the job, and so may follow it and answer its plain questions, but not approve.
    const started = await call("tools/call", { name: "run_job", arguments: {} }, { token: agentToken });
    const taskId = started.body?.result?.["taskId"] as string;
    const job = jobs.onlyJob();
    jobs.update(job, { ...inputRequiredSnapshot({ gate: approvalRequest() }), approvalKeys: ["gate"] });
    const answer = { taskId, inputResponses: { gate: { action: "accept", content: { approve: true } } } };
    const refused = await call("tasks/update", answer, { token: agentToken });
    expect(refused.body?.error?.code).toBe(-32602);
    expect(refused.body?.error?.message).toContain(
      'question gate of run_job is an approval, which needs the scope "jobs:approve"',
    );
    expect(refused.body?.error?.data).toEqual({ requiredScopes: ["jobs:approve"], key: "gate" });
    expect(job.responses).toEqual([]);
    // Another principal's task is not found, scopes or not.
    expect((await call("tasks/update", answer, { token: personToken })).body?.error?.message).toBe(
      "Failed to retrieve task: Task not found",
    );
  });

  it("a token with the approval scope answers an approval of its own task", async () => {
    const { call, jobs } = await serve();
    const started = await call("tools/call", { name: "run_job", arguments: {} }, { token: personToken });
    const taskId = started.body?.result?.["taskId"] as string;
    const job = jobs.onlyJob();
    jobs.update(job, { ...inputRequiredSnapshot({ gate: approvalRequest() }), approvalKeys: ["gate"] });
    const answered = await call(
      "tasks/update",
      { taskId, inputResponses: { gate: { action: "accept", content: { approve: true } } } },
      { token: personToken },
    );
    expect(answered.body?.result).toMatchObject({ resultType: "complete" });
    expect(job.responses).toEqual([{ gate: { action: "accept", content: { approve: true } } }]);
  });
});
