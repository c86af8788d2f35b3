import { UpstreamError } from "@jobtasks/core";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, type HttpClientOptions } from "./http-client.js";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

const origin = "https://jobs.example.test";
const agent = mockAgent();
afterEach(() => agent.assertNoPendingInterceptors());

function client(overrides: Partial<HttpClientOptions> = {}) {
  return createHttpClient({
    dispatcher: agent,
    timeoutMs: 2_000,
    maxResponseBytes: 1_000,
    maxRedirects: 3,
    fixedHeaders: { "user-agent": "jobtasks-test" },
    credentialHeaders: { authorization: "Bearer s3cret-token-value" },
    credentialOrigins: new Set([origin]),
    redirectOrigins: new Set([origin, "https://blobs.example.test"]),
    ...overrides,
  });
}

const signal = () => new AbortController().signal;

describe("http client", () => {
  it("sends JSON with credentials to a credential origin and parses the answer", async () => {
    let request: SeenRequest | undefined;
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply((options) => {
        request = seen(options);
        return { statusCode: 201, data: { id: "job_1" }, responseOptions: { headers: { "retry-after": "3" } } };
      });
    const response = await client().send(
      { method: "POST", url: new URL(`${origin}/jobs`), body: { steps: 2 } },
      signal(),
    );
    expect(response).toMatchObject({ status: 201, body: { id: "job_1" }, retryAfterMs: 3_000 });
    expect(request?.headers).toMatchObject({
      authorization: "Bearer s3cret-token-value",
      "content-type": "application/json",
      "user-agent": "jobtasks-test",
    });
    expect(request?.body).toEqual({ steps: 2 });
  });

  it("treats an empty body as no body", async () => {
    agent.get(origin).intercept({ path: "/jobs/1", method: "GET" }).reply(202, "");
    await expect(client().send({ method: "GET", url: new URL(`${origin}/jobs/1`) }, signal())).resolves.toMatchObject({
      status: 202,
      body: undefined,
    });
  });

  it("turns a non-JSON success body into a retryable UpstreamError", async () => {
    agent.get(origin).intercept({ path: "/jobs/1", method: "GET" }).reply(200, "<html>gateway</html>");
    const failure = await client()
      .send({ method: "GET", url: new URL(`${origin}/jobs/1`) }, signal())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ isRetryable: true, httpStatus: 200 });
    expect((failure as Error).message).toMatch(/not valid JSON/);
  });

  it("keeps an HTML error page from crashing: the status decides", async () => {
    agent.get(origin).intercept({ path: "/jobs/1", method: "GET" }).reply(502, "<html>bad gateway</html>");
    await expect(client().send({ method: "GET", url: new URL(`${origin}/jobs/1`) }, signal())).resolves.toMatchObject({
      status: 502,
      body: undefined,
    });
  });

  it("rejects a body over the size bound by its declared length", async () => {
    agent
      .get(origin)
      .intercept({ path: "/big", method: "GET" })
      .reply(200, "x".repeat(10), { headers: { "content-length": "5000" } });
    await expect(client().send({ method: "GET", url: new URL(`${origin}/big`) }, signal())).rejects.toThrow(
      /larger than maxResponseBytes \(1000 bytes\)/,
    );
  });

  it("rejects a body over the size bound while streaming it, when no length is declared", async () => {
    agent
      .get(origin)
      .intercept({ path: "/big", method: "GET" })
      .reply(200, JSON.stringify({ data: "y".repeat(5_000) }));
    const failure = await client()
      .send({ method: "GET", url: new URL(`${origin}/big`) }, signal())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as Error).message).toMatch(/larger than maxResponseBytes/);
  });

  it("follows a same-origin redirect with credentials and a cross-origin one without", async () => {
    const requests: SeenRequest[] = [];
    agent
      .get(origin)
      .intercept({ path: "/jobs/1/result", method: "GET" })
      .reply(302, "", { headers: { location: "/results/1" } });
    agent
      .get(origin)
      .intercept({ path: "/results/1", method: "GET" })
      .reply((options) => {
        requests.push(seen(options));
        return {
          statusCode: 302,
          data: "",
          responseOptions: { headers: { location: "https://blobs.example.test/r/1?sig=abc" } },
        };
      });
    agent
      .get("https://blobs.example.test")
      .intercept({ path: "/r/1?sig=abc", method: "GET" })
      .reply((options) => {
        requests.push(seen(options));
        return { statusCode: 200, data: { ok: true } };
      });
    const response = await client().send({ method: "GET", url: new URL(`${origin}/jobs/1/result`) }, signal());
    expect(response.body).toEqual({ ok: true });
    expect(response.url.origin).toBe("https://blobs.example.test");
    expect(requests[0]?.headers["authorization"]).toBe("Bearer s3cret-token-value");
    expect(requests[1]?.headers["authorization"]).toBeUndefined();
  });

  it("keeps an outage answer with an oversized error body a retryable status, whatever its length", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs/1", method: "GET" })
      .reply(503, `<html>${"x".repeat(5_000)}</html>`);
    await expect(client().send({ method: "GET", url: new URL(`${origin}/jobs/1`) }, signal())).resolves.toMatchObject({
      status: 503,
      body: undefined,
    });
    agent
      .get(origin)
      .intercept({ path: "/jobs/1", method: "GET" })
      .reply(429, "x".repeat(5_000), { headers: { "content-length": "5000", "retry-after": "4" } });
    await expect(client().send({ method: "GET", url: new URL(`${origin}/jobs/1`) }, signal())).resolves.toMatchObject({
      status: 429,
      retryAfterMs: 4_000,
    });
  });

  it("refuses a redirect to an origin that is neither a credential origin nor an allowed redirect origin", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs/1", method: "GET" })
      .reply(302, "", { headers: { location: "http://169.254.169.254/latest/meta-data" } });
    const failure = await client()
      .send({ method: "GET", url: new URL(`${origin}/jobs/1`) }, signal())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ isRetryable: false });
    expect((failure as Error).message).toMatch(/redirected to an origin that is not allowed .*allowedRedirectOrigins/);
    // Where it pointed stays out of the message (it reaches the client) and is kept in the cause, for the log.
    expect((failure as Error).message).not.toContain("169.254.169.254");
    expect(((failure as Error).cause as Error).message).toMatch(/redirected to http:\/\/169\.254\.169\.254/);
  });

  it("drops credentials when a redirect changes origin, even to another credential origin", async () => {
    const other = "https://other.example.test";
    let request: SeenRequest | undefined;
    agent
      .get(origin)
      .intercept({ path: "/jobs/1", method: "GET" })
      .reply(302, "", { headers: { location: `${other}/jobs/1` } });
    agent
      .get(other)
      .intercept({ path: "/jobs/1", method: "GET" })
      .reply((options) => {
        request = seen(options);
        return { statusCode: 200, data: { ok: true } };
      });
    const both = new Set([origin, other]);
    await client({ credentialOrigins: both, redirectOrigins: both }).send(
      { method: "GET", url: new URL(`${origin}/jobs/1`) },
      signal(),
    );
    expect(request?.headers["authorization"]).toBeUndefined();
  });

  it("stops following redirects after maxRedirects", async () => {
    agent
      .get(origin)
      .intercept({ path: "/loop", method: "GET" })
      .reply(302, "", { headers: { location: "/loop" } })
      .times(2);
    const response = await client({ maxRedirects: 1 }).send(
      { method: "GET", url: new URL(`${origin}/loop`) },
      signal(),
    );
    expect(response.status).toBe(302);
  });

  it("does not follow a 307 after a POST (the body would be replayed elsewhere)", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply(307, "", { headers: { location: "https://elsewhere.example.test/jobs" } });
    await expect(
      client().send({ method: "POST", url: new URL(`${origin}/jobs`), body: {} }, signal()),
    ).resolves.toMatchObject({ status: 307 });
  });

  it("times out a slow answer with a retryable UpstreamError", async () => {
    agent.get(origin).intercept({ path: "/slow", method: "GET" }).reply(200, { ok: true }).delay(1_000);
    const failure = await client({ timeoutMs: 50 })
      .send({ method: "GET", url: new URL(`${origin}/slow`) }, signal())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ isRetryable: true });
    expect((failure as Error).message).toMatch(/timed out after 50 ms/);
  });

  it("still times out when garbage collection runs while the answer is awaited", async () => {
    // Node 20's AbortSignal.any holds its sources weakly: a timeout signal referenced by nothing else was
    // collected and never fired, so a slow answer was awaited for as long as it took.
    setFlagsFromString("--expose-gc");
    const collect = runInNewContext("gc") as () => void;
    agent.get(origin).intercept({ path: "/slow", method: "GET" }).reply(200, { ok: true }).delay(1_500);
    const pending = client({ timeoutMs: 200 })
      .send({ method: "GET", url: new URL(`${origin}/slow`) }, new AbortController().signal)
      .catch((error: unknown) => error);
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      collect();
    }
    const failure = await pending;
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as Error).message).toMatch(/timed out after 200 ms/);
  });

  it("passes the caller's abort through unchanged", async () => {
    agent.get(origin).intercept({ path: "/slow", method: "GET" }).reply(200, { ok: true }).delay(1_000);
    const controller = new AbortController();
    const pending = client().send({ method: "GET", url: new URL(`${origin}/slow`) }, controller.signal);
    controller.abort(new Error("caller went away"));
    await expect(pending).rejects.toThrow("caller went away");
  });

  // A connection lost after sending may have been acted on: an OutcomeUnknownError, which is an UpstreamError.
  it("turns a connection failure into a retryable UpstreamError", async () => {
    agent.get(origin).intercept({ path: "/down", method: "GET" }).replyWithError(new Error("ECONNRESET"));
    const failure = await client()
      .send({ method: "GET", url: new URL(`${origin}/down`) }, signal())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ name: "OutcomeUnknownError", isRetryable: true });
  });
});
