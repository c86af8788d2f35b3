import { describe, expect, it } from "vitest";
import { sign } from "@octokit/webhooks-methods";
import { AdapterConfigError, type EventDeliveryV1 } from "@jobtasks/core";
import { githubActions } from "./github-actions-adapter.js";
import { createTestAdapter, fixtureText, runRef, testToken } from "./test-support/github-fixtures.js";

const webhookSecret = "whsec-test-0123456789abcdef";

async function delivery(
  event: string,
  fixtureName: string,
  options: { secret?: string; deliveryId?: string } = {},
): Promise<EventDeliveryV1> {
  const text = fixtureText(fixtureName);
  return {
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": options.deliveryId ?? "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      "x-hub-signature-256": await sign(options.secret ?? webhookSecret, text),
    },
    body: new TextEncoder().encode(text),
    receivedAt: Date.now(),
  };
}

const events = () => createTestAdapter({ webhookSecret }).events!;

describe("GitHub webhook deliveries: verification", () => {
  it("verifies X-Hub-Signature-256 made with the webhook secret and names the delivery by X-GitHub-Delivery", async () => {
    const verification = await events().doVerifyDelivery(
      await delivery("workflow_run", "webhook-workflow-run-completed.json"),
    );
    expect(verification).toEqual({ verified: true, deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958" });
  });

  it("refuses another secret's signature, a missing one and a body changed after signing", async () => {
    const other = await delivery("workflow_run", "webhook-workflow-run-completed.json", {
      secret: "another-secret-0123456789",
    });
    expect((await events().doVerifyDelivery(other)).verified).toBe(false);
    const signed = await delivery("workflow_run", "webhook-workflow-run-completed.json");
    const { "x-hub-signature-256": _signature, ...unsigned } = signed.headers;
    expect(await events().doVerifyDelivery({ ...signed, headers: unsigned })).toEqual({
      verified: false,
      reason: "no X-Hub-Signature-256 header",
    });
    const tampered = new TextEncoder().encode(
      Buffer.from(signed.body).toString("utf8").replace('"conclusion": "success"', '"conclusion": "failure"'),
    );
    expect((await events().doVerifyDelivery({ ...signed, body: tampered })).verified).toBe(false);
  });

  it("declares the webhook secret as a secret, so the core redacts it", () => {
    const adapter = githubActions({ token: testToken, repositories: ["octo-org/octo-app"], webhookSecret }, {});
    const secrets = typeof adapter.secrets === "function" ? adapter.secrets() : adapter.secrets;
    expect(secrets).toContain(webhookSecret);
  });

  it("takes the secret from GITHUB_WEBHOOK_SECRET, has no events without one, and refuses a short one", () => {
    const options = { token: testToken, repositories: ["octo-org/octo-app"] };
    expect(githubActions(options, {}).events).toBeUndefined();
    expect(githubActions(options, { GITHUB_WEBHOOK_SECRET: webhookSecret }).events).toBeDefined();
    expect(() => githubActions(options, { GITHUB_WEBHOOK_SECRET: "short" })).toThrow(AdapterConfigError);
    expect(() => githubActions(options, { GITHUB_WEBHOOK_SECRET: "short" })).toThrow(/webhookSecret/);
  });
});

describe("GitHub webhook deliveries: the jobs they concern", () => {
  const read = async (event: string, fixtureName: string) =>
    events().doReadDelivery(await delivery(event, fixtureName));
  const payloadRef = { ...runRef, owner: "Octo-Org" };

  it("gives a queued run's snapshot: the payload says all a read would", async () => {
    expect(await read("workflow_run", "webhook-workflow-run-requested.json")).toEqual({
      event: "workflow_run",
      action: "requested",
      jobs: [
        {
          ref: payloadRef,
          snapshot: { status: "working", rawStatus: "queued", message: "queued", updatedAt: "2026-11-20T10:00:01Z" },
        },
      ],
    });
  });

  it("says a running or finished run changed, for a read to fetch its jobs, logs and result", async () => {
    expect((await read("workflow_run", "webhook-workflow-run-in-progress.json")).jobs).toEqual([
      { ref: payloadRef, updatedAt: "2026-11-20T10:00:30Z" },
    ]);
    expect((await read("workflow_run", "webhook-workflow-run-completed.json")).jobs).toEqual([
      { ref: payloadRef, updatedAt: "2026-11-20T10:04:12Z" },
    ]);
  });

  it("gives a cancelled run's snapshot", async () => {
    expect((await read("workflow_run", "webhook-workflow-run-cancelled.json")).jobs).toEqual([
      {
        ref: payloadRef,
        snapshot: {
          status: "cancelled",
          rawStatus: "completed/cancelled",
          message: "cancelled",
          updatedAt: "2026-11-20T10:02:40Z",
        },
      },
    ]);
  });

  it("names a re-run's own attempt, never the attempt before it", async () => {
    const jobs = (await read("workflow_run", "webhook-workflow-run-rerun-requested.json")).jobs;
    expect(jobs.map((job) => job.ref)).toEqual([{ ...payloadRef, attempt: 2 }]);
  });

  it("wakes the run for a job waiting on an environment, and for an approval requested or given", async () => {
    expect((await read("workflow_job", "webhook-workflow-job-waiting.json")).jobs).toEqual([{ ref: payloadRef }]);
    expect((await read("deployment_review", "webhook-deployment-review-requested.json")).jobs).toEqual([
      { ref: payloadRef, updatedAt: "2026-11-20T10:01:02Z" },
    ]);
    const approved = await read("deployment_review", "webhook-deployment-review-approved.json");
    expect(approved.action).toBe("approved");
    expect(approved.jobs).toEqual([{ ref: payloadRef, updatedAt: "2026-11-20T10:03:00Z" }]);
  });

  it("names no job for a ping or a protection rule's request (which names no attempt)", async () => {
    expect((await read("ping", "webhook-ping.json")).jobs).toEqual([]);
    expect(
      (await read("deployment_protection_rule", "webhook-deployment-protection-rule-requested.json")).jobs,
    ).toEqual([]);
  });

  it("names one job for a ref however its owner and repository are capitalised", () => {
    const identity = events().jobIdentity!;
    expect(identity(payloadRef)).toEqual(identity({ ...runRef, repo: "Octo-App" }));
    expect(identity(payloadRef)).not.toEqual(identity({ ...runRef, attempt: 2 }));
  });
});

describe("GitHub webhook deliveries: a body that is not JSON", () => {
  it("is unreadable with a message that quotes none of it (the server logs the message)", async () => {
    const text = '{"workflow_run": octo-org/private-repo';
    const signed: EventDeliveryV1 = {
      headers: {
        "x-github-event": "workflow_run",
        "x-hub-signature-256": await sign(webhookSecret, text),
      },
      body: new TextEncoder().encode(text),
      receivedAt: Date.now(),
    };
    expect(await events().doVerifyDelivery(signed)).toEqual({ verified: true });
    const failure = await events()
      .doReadDelivery(signed)
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(failure?.message).toBe("the body is not JSON");
  });
});
