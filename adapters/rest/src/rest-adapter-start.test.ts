import { InvalidToolInputError, UpstreamError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

const agent = mockAgent();
const farm = agent.get(renderFarmOrigin);
afterEach(() => agent.assertNoPendingInterceptors());

const environment = { RENDER_TOKEN: renderFarmToken };
function adapter(overrides = {}) {
  return restAdapter(renderFarmConfig(overrides), { dispatcher: agent, environment, now: () => 1_000_000 });
}
function tool(overrides = {}) {
  const built = adapter(overrides).tools[0];
  if (!built) throw new Error("no tool");
  return built;
}

describe("rest adapter: starting a job", () => {
  it("validates input with a zod schema built from the typed form, defaults included", () => {
    const schema = tool().inputSchema;
    expect(schema.parse({ scene: "intro" })).toEqual({ scene: "intro", frames: 10 });
    expect(schema.safeParse({}).success).toBe(false);
    expect(schema.safeParse({ scene: "intro", frames: 2.5 }).success).toBe(false);
    expect(schema.safeParse({ scene: "intro", frames: 0 }).success).toBe(false);
    expect(schema.safeParse({ scene: "intro", admin: true }).success).toBe(false);
  });

  it("sends the submit request built from the input, with credentials and an idempotency key", async () => {
    let request: SeenRequest | undefined;
    farm.intercept({ path: "/api/scenes/intro%2Fpart%201/renders", method: "POST" }).reply((options) => {
      request = seen(options);
      return { statusCode: 201, data: { render: { id: "r-42", state: "queued" } } };
    });
    const started = await tool().doStart({ scene: "intro/part 1", frames: 24, priority: "high" }, createTestContext());
    expect(started.ref).toEqual({ id: "r-42", createdAt: 1_000_000 });
    expect(started.snapshot).toBeUndefined();
    expect(request?.body).toEqual({ frames: 24, priority: "high", label: "scene intro/part 1" });
    expect(request?.headers["authorization"]).toBe(`Bearer ${renderFarmToken}`);
    expect(request?.headers["x-priority"]).toBe("high");
    expect(request?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("leaves optional values out of the body and headers when absent", async () => {
    let request: SeenRequest | undefined;
    farm.intercept({ path: "/api/scenes/intro/renders", method: "POST" }).reply((options) => {
      request = seen(options);
      return { statusCode: 202, data: { render: { id: "r-43" } } };
    });
    await tool().doStart({ scene: "intro", frames: 10 }, createTestContext());
    expect(request?.body).toEqual({ frames: 10, label: "scene intro" });
    expect(request?.headers["x-priority"]).toBeUndefined();
  });

  it("refuses a path traversal attempt as invalid input before sending anything", async () => {
    const failure = await tool()
      .doStart({ scene: "..", frames: 1 }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidToolInputError);
    expect((failure as InvalidToolInputError).field).toBe("scene");
  });

  it("refuses header splitting through the input", async () => {
    await expect(
      tool().doStart({ scene: "a", frames: 1, priority: "low\r\nX-Admin: yes" }, createTestContext()),
    ).rejects.toBeInstanceOf(InvalidToolInputError);
  });

  it("retries a retryable submit failure under the same idempotency key", async () => {
    const keys: string[] = [];
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply((options) => {
      keys.push(seen(options).headers["idempotency-key"] ?? "");
      return { statusCode: 503, data: { message: "busy" }, responseOptions: { headers: { "retry-after": "0" } } };
    });
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply((options) => {
      keys.push(seen(options).headers["idempotency-key"] ?? "");
      return { statusCode: 201, data: { render: { id: "r-44" } } };
    });
    const context = createTestContext();
    await expect(tool().doStart({ scene: "a", frames: 1 }, context)).resolves.toMatchObject({ ref: { id: "r-44" } });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(context.logEntries.map((entry) => entry.message)).toContainEqual(
      expect.stringMatching(/retrying under the same idempotency key/),
    );
  });

  it("sends no retry before the submit's Retry-After has elapsed: a short one is waited out, a long one ends the retries", async () => {
    const arrivals: number[] = [];
    const answer = (retryAfter: string) => () => {
      arrivals.push(performance.now());
      return {
        statusCode: 429,
        data: { message: "slow down" },
        responseOptions: { headers: { "retry-after": retryAfter } },
      };
    };
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply(answer("1"));
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply(answer("30"));
    const failure = await tool()
      .doStart({ scene: "a", frames: 1 }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "UpstreamError", httpStatus: 429, retryAfterMs: 30_000 });
    // Two attempts of the three allowed: the second's Retry-After (30 s) is longer than a submit waits.
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it("never retries a submit without an idempotency header (a lost answer could start the job twice)", async () => {
    const config = renderFarmConfig();
    const [first] = config.tools ?? [];
    const withoutKey = { ...first!, submit: { ...first!.submit, idempotencyHeader: undefined, retries: 0 } };
    const built = restAdapter({ ...config, tools: [withoutKey] }, { dispatcher: agent, environment }).tools[0]!;
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply(503, { message: "busy" });
    const failure = await built
      .doStart({ scene: "a", frames: 1 }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ httpStatus: 503, isRetryable: true });
  });

  it("reports an upstream 400 as invalid arguments with the upstream's reason", async () => {
    farm
      .intercept({ path: "/api/scenes/a/renders", method: "POST" })
      .reply(400, { error: { message: "frames: too many for this plan" } });
    const failure = await tool()
      .doStart({ scene: "a", frames: 999 }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidToolInputError);
    expect((failure as Error).message).toMatch(/HTTP 400.*frames: too many for this plan/);
  });

  it("fails clearly when the submit answer carries no job reference", async () => {
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply(201, { accepted: true });
    await expect(tool().doStart({ scene: "a", frames: 1 }, createTestContext())).rejects.toThrow(
      /no job reference \(body path render.id\)/,
    );
  });

  it("says once, not twice, that a job may exist when the accepted submit names no job", async () => {
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply(201, { accepted: true });
    const failure = await tool()
      .doStart({ scene: "a", frames: 1 }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "OutcomeUnknownError", isRetryable: false });
    expect((failure as Error).message.match(/must not be submitted again/g)).toHaveLength(1);
  });

  it("turns a malformed submit answer into an upstream error, not a crash", async () => {
    // Retried under the idempotency key like any retryable failure, then given up.
    farm.intercept({ path: "/api/scenes/a/renders", method: "POST" }).reply(201, "{not json").times(3);
    await expect(tool().doStart({ scene: "a", frames: 1 }, createTestContext())).rejects.toBeInstanceOf(UpstreamError);
  });

  it("maps the submit body as a first snapshot when asked to", async () => {
    const config = renderFarmConfig();
    const [first] = config.tools ?? [];
    const withSnapshot = { ...first!, submit: { ...first!.submit, firstSnapshot: true } };
    const built = restAdapter({ ...config, tools: [withSnapshot] }, { dispatcher: agent, environment }).tools[0]!;
    farm
      .intercept({ path: "/api/scenes/a/renders", method: "POST" })
      .reply(201, { render: { id: "r-45" }, state: "queued", progress: { frame: 0, total: 5 } });
    const started = await built.doStart({ scene: "a", frames: 5 }, createTestContext());
    expect(started.snapshot).toMatchObject({
      status: "working",
      rawStatus: "queued",
      message: "frame 0/5",
      pollIntervalMs: 1_000,
    });
  });

  it("prefixes tool names to keep them unique across instances", () => {
    expect(adapter({ toolNamePrefix: "farm_" }).tools.map((built) => built.name)).toEqual(["farm_render_scene"]);
  });
});
