import { afterEach, describe, expect, it } from "vitest";
import { UpstreamError } from "@jobtasks/core";
import { rawCall, rawError, rawResult, type RawCallOptions, type RawResponse } from "./support/raw-rpc.js";
import { Cleanup, randomSecret, startInProcessServer } from "./support/in-process-server.js";
import { approvalRequest, createScriptedAdapter, inputRequiredSnapshot } from "./support/scripted-adapter.js";

/** Bearer tokens, per-principal tasks, and no secret in any answer. */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const aliceToken = "alice-token-0123456789abcdef";
const bobToken = "bob-token-fedcba9876543210xyz";
const notFound = { code: -32602, message: "Failed to retrieve task: Task not found" };

async function serve() {
  const scripted = createScriptedAdapter();
  const secret = randomSecret();
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      secret,
      tokens: `alice:${aliceToken},bob:${bobToken}`,
      service: { upstreamRetryBudgetMs: 0 },
    }),
  );
  // Every answer this server gives in a test, for the check that no secret leaks.
  const answers: RawResponse[] = [];
  const call = async (method: string, params: Record<string, unknown>, options: RawCallOptions = {}) => {
    const response = await rawCall(server.url, method, params, options);
    answers.push(response);
    return response;
  };
  return { scripted, url: server.url, secret, call, answers };
}

describe("bearer tokens", () => {
  it("no token or a wrong token is HTTP 401 with a JSON-RPC error body", async () => {
    const { call } = await serve();
    for (const token of [undefined, "not-a-valid-token-at-all", `${aliceToken}x`, aliceToken.slice(0, -1)]) {
      const response = await call(
        "tools/call",
        { name: "scripted_job", arguments: {} },
        token === undefined ? {} : { token },
      );
      expect(response.httpStatus, String(token)).toBe(401);
      expect(response.body?.jsonrpc).toBe("2.0");
      expect(typeof response.body?.error?.code).toBe("number");
      expect(typeof response.body?.error?.message).toBe("string");
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  it("a valid token is served", async () => {
    const { call } = await serve();
    const response = await call("tools/call", { name: "scripted_job", arguments: {} }, { token: aliceToken });
    expect(response.httpStatus).toBe(200);
    expect(response.body?.result?.["resultType"]).toBe("task");
  });

  it("alice's task opened by bob is -32602 not found, exactly like a random id, and bob cannot act on it", async () => {
    const { url, scripted } = await serve();
    const created = await rawResult(url, "tools/call", { name: "scripted_job", arguments: {} }, { token: aliceToken });
    const taskId = created["taskId"] as string;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ "job-1-approval-1": approvalRequest() }));
    const randomAnswer = await rawError(
      url,
      "tasks/get",
      { taskId: `jt1.${taskId.split(".")[1]}.${"Q".repeat(100)}` },
      { token: bobToken },
    );
    expect(randomAnswer).toEqual(notFound);
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      [
        "tasks/update",
        { taskId, inputResponses: { "job-1-approval-1": { action: "accept", content: { approve: true } } } },
      ],
      ["tasks/cancel", { taskId }],
    ] as const) {
      expect(await rawError(url, method, params, { token: bobToken }), method).toEqual(randomAnswer);
    }
    expect(scripted.calls.respond).toBe(0);
    expect(scripted.calls.cancel).toBe(0);
    expect((await rawResult(url, "tasks/get", { taskId }, { token: aliceToken }))["status"]).toBe("input_required");
  });
});

describe("secrets", () => {
  it("neither JOBTASKS_SECRET nor any token appears in any answer", async () => {
    const { call, answers, secret, scripted } = await serve();
    await call("server/discover", {}, { token: aliceToken });
    await call("tools/list", {}, { token: aliceToken });
    await call("tools/call", { name: "scripted_job", arguments: {} });
    await call("tools/call", { name: "scripted_job", arguments: {} }, { token: `${aliceToken}-wrong` });
    await call("tools/call", { name: "scripted_job", arguments: { label: 7 } }, { token: aliceToken });
    const created = await call("tools/call", { name: "scripted_job", arguments: {} }, { token: aliceToken });
    const taskId = created.body?.result?.["taskId"] as string;
    await call("tasks/get", { taskId }, { token: aliceToken });
    await call("tasks/get", { taskId }, { token: bobToken });
    await call("tasks/get", { taskId }, { token: aliceToken, tasks: false });
    await call("tasks/get", { taskId }, { token: aliceToken, omitMcpName: true });
    // A failure path: the upstream refuses, the task fails with a message built from the error.
    scripted.failReads(scripted.onlyJob(), new UpstreamError("upstream answered 403", { httpStatus: 403 }));
    await call("tasks/get", { taskId }, { token: aliceToken });
    expect(answers.length).toBe(11);
    for (const answer of answers) {
      for (const secretValue of [secret, aliceToken, bobToken]) expect(answer.text).not.toContain(secretValue);
      for (const [name, value] of answer.headers) {
        for (const secretValue of [secret, aliceToken, bobToken])
          expect(`${name}: ${value}`).not.toContain(secretValue);
      }
    }
  });
});
