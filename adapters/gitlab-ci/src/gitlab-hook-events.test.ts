import { describe, expect, it } from "vitest";
import { AdapterConfigError, type EventDeliveryV1 } from "@jobtasks/core";
import { gitlabCi } from "./gitlab-ci-adapter.js";
import { baseUrl, createMockGitlab, createTestAdapter, fixtureText, testToken } from "./test-support/mock-gitlab.js";

const webhookSecret = "glhook-test-secret-0123456789";

function delivery(
  event: string,
  fixtureName: string,
  headers: Record<string, string | undefined> = {},
  change: (payload: Record<string, any>) => void = () => undefined,
): EventDeliveryV1 {
  const payload = JSON.parse(fixtureText(fixtureName)) as Record<string, any>;
  change(payload);
  const all: Record<string, string | undefined> = {
    "content-type": "application/json",
    "x-gitlab-event": event,
    "x-gitlab-token": webhookSecret,
    "x-gitlab-event-uuid": "3c7a1b0e-8f1d-4c55-9a3e-6d2f4b8e1a07",
    "x-gitlab-webhook-uuid": "0b5e8a41-2c9d-4f7e-8b13-5a6c7d8e9f01",
    ...headers,
  };
  return {
    headers: Object.fromEntries(
      Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    body: new TextEncoder().encode(JSON.stringify(payload)),
    receivedAt: Date.now(),
  };
}

const events = () => createTestAdapter(createMockGitlab(), { webhookSecret }).events!;

describe("GitLab hook deliveries: verification", () => {
  it("verifies X-Gitlab-Token equal to the webhook secret and names the delivery by X-Gitlab-Event-UUID", async () => {
    expect(await events().doVerifyDelivery(delivery("Pipeline Hook", "hook-pipeline-success.json"))).toEqual({
      verified: true,
      deliveryId: "3c7a1b0e-8f1d-4c55-9a3e-6d2f4b8e1a07",
    });
  });

  it("names the delivery by Idempotency-Key where GitLab sends one (it stays the same on GitLab's retries)", async () => {
    const retried = delivery("Job Hook", "hook-job-failed.json", {
      "idempotency-key": "f2b9c0d4-6e1a-4b7c-9d3e-2a8f5c1b7e60",
    });
    expect(await events().doVerifyDelivery(retried)).toEqual({
      verified: true,
      deliveryId: "f2b9c0d4-6e1a-4b7c-9d3e-2a8f5c1b7e60",
    });
  });

  it("refuses a wrong token, a missing one, an empty one and one of another length", async () => {
    const refusal = async (token: string | undefined) =>
      events().doVerifyDelivery(delivery("Pipeline Hook", "hook-pipeline-success.json", { "x-gitlab-token": token }));
    // Same length, one character off.
    expect(await refusal(webhookSecret.slice(0, -1) + "X")).toEqual({
      verified: false,
      reason: "X-Gitlab-Token does not match the webhook secret",
    });
    expect(await refusal(undefined)).toEqual({ verified: false, reason: "no X-Gitlab-Token header" });
    expect(await refusal("")).toEqual({ verified: false, reason: "no X-Gitlab-Token header" });
    expect((await refusal(webhookSecret + "-and-more")).verified).toBe(false);
    expect((await refusal(webhookSecret.slice(0, 8))).verified).toBe(false);
  });

  it("declares the webhook secret as a secret, so the core redacts it", () => {
    const adapter = gitlabCi({ token: testToken, baseUrl, projects: ["acme/shop"], webhookSecret }, {});
    const secrets = typeof adapter.secrets === "function" ? adapter.secrets() : adapter.secrets;
    expect(secrets).toContain(webhookSecret);
  });

  it("takes the secret from GITLAB_WEBHOOK_SECRET, has no events without one, and refuses a short one", () => {
    const options = { token: testToken, baseUrl, projects: ["acme/shop"] };
    expect(gitlabCi(options, {}).events).toBeUndefined();
    expect(gitlabCi(options, { GITLAB_WEBHOOK_SECRET: webhookSecret }).events).toBeDefined();
    expect(() => gitlabCi(options, { GITLAB_WEBHOOK_SECRET: "short" })).toThrow(AdapterConfigError);
    expect(() => gitlabCi(options, { GITLAB_WEBHOOK_SECRET: "short" })).toThrow(/webhookSecret/);
    expect(() => gitlabCi({ ...options, webhookSecret: "short" }, {})).toThrow(/webhookSecret/);
  });
});

describe("GitLab hook deliveries: the pipelines they concern", () => {
  // The test adapter allows the project under both spellings a tool takes: its path and its numeric id.
  const bothSpellings = (pipelineId: number) => [
    { ref: { project: "acme/shop", pipelineId } },
    { ref: { project: "278964", pipelineId } },
  ];

  it("says the pipeline of a Pipeline Hook changed, for each task to read its own run again", async () => {
    const hooks = events();
    const success = await hooks.doReadDelivery(delivery("Pipeline Hook", "hook-pipeline-success.json"));
    expect(success).toEqual({ event: "Pipeline Hook", action: "success", jobs: bothSpellings(1284711) });
    const running = await hooks.doReadDelivery(delivery("Pipeline Hook", "hook-pipeline-running.json"));
    expect(running.action).toBe("running");
    expect(running.jobs).toEqual(bothSpellings(1284711));
  });

  it("names the pipeline of a Job Hook by its pipeline_id", async () => {
    expect(await events().doReadDelivery(delivery("Job Hook", "hook-job-failed.json"))).toEqual({
      event: "Job Hook",
      action: "failed",
      jobs: bothSpellings(1284711),
    });
  });

  it("names the pipeline of a Deployment Hook when an earlier hook listed its job, and none otherwise", async () => {
    const hooks = events();
    const deployment = delivery("Deployment Hook", "hook-deployment-running.json");
    expect((await hooks.doReadDelivery(deployment)).jobs).toEqual([]);
    // The pipeline's hook lists the deploy job among its builds.
    await hooks.doReadDelivery(
      delivery("Pipeline Hook", "hook-pipeline-running.json", {}, (payload) => {
        payload["builds"].push({ ...payload["builds"][1], id: 9011303, name: "deploy", stage: "deploy" });
      }),
    );
    expect(await hooks.doReadDelivery(deployment)).toEqual({
      event: "Deployment Hook",
      action: "running",
      jobs: bothSpellings(1284711),
    });
  });

  it("names no pipeline for another project's hook, whether by id or by path", async () => {
    const otherProject = (payload: Record<string, any>) => {
      payload["project"] = { ...payload["project"], id: 5551234, path_with_namespace: "acme/shop-admin" };
      payload["project_id"] = 5551234;
    };
    const hooks = events();
    for (const [event, fixture] of [
      ["Pipeline Hook", "hook-pipeline-success.json"],
      ["Job Hook", "hook-job-failed.json"],
    ] as const) {
      expect((await hooks.doReadDelivery(delivery(event, fixture, {}, otherProject))).jobs).toEqual([]);
    }
  });

  it("matches a project path whatever its capitals, and names a pipeline without the run a task follows", async () => {
    const hooks = events();
    const capitalised = await hooks.doReadDelivery(
      delivery("Pipeline Hook", "hook-pipeline-success.json", {}, (payload) => {
        payload["project"].path_with_namespace = "Acme/Shop";
        payload["project"].id = 999;
      }),
    );
    expect(capitalised.jobs).toEqual([{ ref: { project: "acme/shop", pipelineId: 1284711 } }]);
    const identity = hooks.jobIdentity!;
    const pipeline = { project: "acme/shop", pipelineId: 1284711 };
    expect(identity({ ...pipeline, jobsUpTo: 9011302 })).toEqual(identity({ ...pipeline, project: "Acme/Shop" }));
    expect(identity({ ...pipeline, retriedAfterJobId: 9011302, jobsUpTo: 9011400 })).toEqual(identity(pipeline));
    expect(identity(pipeline)).not.toEqual(identity({ ...pipeline, pipelineId: 1284712 }));
  });

  it("refuses a body that is not JSON (the server answers 400 and nothing happens)", async () => {
    const broken = { ...delivery("Pipeline Hook", "hook-pipeline-success.json"), body: new TextEncoder().encode("{") };
    await expect(events().doReadDelivery(broken)).rejects.toThrow();
    // The reason goes to the server's log: it names the problem and quotes none of the body.
    const quoted = { ...broken, body: new TextEncoder().encode('{"project": group/secret-project') };
    await expect(events().doReadDelivery(quoted)).rejects.toThrow(/^the body is not JSON$/);
  });
});
