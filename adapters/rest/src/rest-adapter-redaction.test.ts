import { withSecretRedaction } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// The adapter declares its credentials (in every form it sends them) and the core redacts them, as the
// server calls it (withSecretRedaction). Redaction works on values, never on JSON text parsed again: a
// secret with quotes or backslashes is redacted too, and a secret that happens to match a number or a key
// cannot break a completed result.
const agent = mockAgent();
const origin = "https://jobs.example.test";
afterEach(() => agent.assertNoPendingInterceptors());

const ref = { id: "j1", createdAt: 0 };
function config(auth: RestOptions["auth"], overrides: Partial<RestOptions> = {}): RestOptions {
  return {
    baseUrl: origin,
    auth,
    tools: [{ name: "t", description: "d", submit: { url: "/jobs" } }],
    reference: { path: "id" },
    status: {
      url: "/jobs/{{job.id}}",
      field: "state",
      working: ["running"],
      completed: ["done"],
      errorValues: ["bad"],
      inputRequired: ["ask"],
      cancelled: ["stopped"],
      failed: ["gone"],
    },
    inputRequired: {
      keyPath: "question.id",
      schema: { type: "object", properties: { a: { type: "string" } } },
      respond: { url: "/jobs/{{job.id}}/answer", declineBody: {} },
    },
    ...overrides,
  };
}
function replyStatus(body: unknown) {
  agent
    .get(origin)
    .intercept({ path: "/jobs/j1", method: "GET" })
    .reply(200, body as object);
}
const read = (options: RestOptions) =>
  withSecretRedaction(restAdapter(options, { dispatcher: agent, now: () => 0 })).doGetStatus(ref, createTestContext());

describe("rest adapter: secret redaction", () => {
  it("redacts a secret holding quotes and backslashes from structuredContent and the text block", async () => {
    const password = 'pa"ss\\word-123';
    replyStatus({ state: "done", echo: `auth ${password}`, nested: [{ deeper: password }] });
    const snapshot = await read(config({ type: "basic", username: "u", password }));
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.structuredContent).toEqual({
      state: "done",
      echo: "auth [redacted]",
      nested: [{ deeper: "[redacted]" }],
    });
    const serialized = JSON.stringify(snapshot);
    expect(serialized).not.toContain("word-123");
  });

  it("keeps a completed job completed when a secret's digits appear inside a number or match a key", async () => {
    replyStatus({ state: "done", count: 12345678, output: { frames: 3 } });
    const numeric = await read(config({ type: "header", name: "X-Pin", value: "123456" }));
    expect(numeric).toMatchObject({ status: "completed", result: { structuredContent: { count: 12345678 } } });
    replyStatus({ state: "done", count: 1, output: { frames: 3 } });
    const keyLike = await read(config({ type: "header", name: "X-Key", value: "output" }));
    expect(keyLike.result?.structuredContent).toEqual({ state: "done", count: 1, output: { frames: 3 } });
  });

  it("redacts a secret from a JSON-quoted value in an error result's detail", async () => {
    const token = 'tok"en-SECRET-99';
    replyStatus({ state: "bad", failure: { detail: `rejected ${token}` } });
    const snapshot = await read(config({ type: "bearer", token }, { result: { errorPath: "failure" } }));
    expect(snapshot.result?.isError).toBe(true);
    expect(JSON.stringify(snapshot)).not.toContain("SECRET-99");
  });

  it("redacts every message built from upstream text, whatever the status", async () => {
    const token = "tok-SECRET-99";
    const withToken = (overrides: Partial<RestOptions> = {}) =>
      config({ type: "bearer", token }, { progress: { message: "{{body.note}}" }, ...overrides });
    // input_required while the upstream has not named the question yet: reported working with the progress message.
    replyStatus({ state: "ask", note: `token ${token} used` });
    await expect(read(withToken())).resolves.toMatchObject({ status: "working", message: "token [redacted] used" });
    const statusWith = (list: "failed" | "cancelled" | "completed") => ({
      status: { ...config({ type: "none" }).status!, [list]: [token] },
    });
    for (const list of ["failed", "cancelled", "completed"] as const) {
      replyStatus({ state: token });
      const snapshot = await read(withToken(statusWith(list)));
      expect(snapshot.status).toBe(list);
      expect(JSON.stringify(snapshot)).not.toContain(token);
    }
  });
});
