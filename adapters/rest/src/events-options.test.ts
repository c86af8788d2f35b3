import { AdapterConfigError, describeConfigIssues } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { restOptionsSchema, type RestOptions } from "./rest-options.js";
import { renderFarmConfig } from "./test-support/render-farm-config.js";

/** The `events` block is checked when the config is read, each problem named at its field. */

const secret = "render-farm-callback-secret-0123";
const environment = { RENDER_TOKEN: "rf-token-0123456789abcdef", RENDER_CALLBACK_SECRET: secret };

type EventsInput = NonNullable<RestOptions["events"]>;

function withEvents(events: unknown): RestOptions {
  return renderFarmConfig({ events: events as EventsInput });
}

function problems(events: unknown): string[] {
  const parsed = restOptionsSchema.safeParse(withEvents(events));
  return parsed.success ? [] : describeConfigIssues(parsed.error.issues);
}

const hmac = { scheme: "hmac-sha256", header: "X-Signature", secretEnv: "RENDER_CALLBACK_SECRET" };

describe("rest events options", () => {
  it("take a job id path and a verification, with defaults for the rest", () => {
    const parsed = restOptionsSchema.parse(withEvents({ jobIdPath: "$.render.id", verification: hmac }));
    expect(parsed.events).toEqual({
      jobIdPath: "$.render.id",
      verification: { ...hmac, encoding: "hex" },
    });
    expect(
      restAdapter(withEvents({ jobIdPath: "render.id", verification: hmac }), { environment }).events,
    ).toBeDefined();
  });

  it("leave the adapter without events when the block is absent", () => {
    expect(restAdapter(renderFarmConfig(), { environment }).events).toBeUndefined();
  });

  it("name a missing job id path, verification, scheme or header", () => {
    expect(problems({ verification: hmac })).toEqual([
      "events.jobIdPath: required: the JSONPath of the job id in the payload",
    ]);
    expect(problems({ jobIdPath: "id" })).toEqual([
      'events.verification: required: how a delivery proves it came from the job API (scheme "hmac-sha256" or "shared-secret")',
    ]);
    expect(problems({ jobIdPath: 7, verification: hmac })).toEqual(["events.jobIdPath: expected a JSONPath"]);
    expect(problems({ jobIdPath: "id", verification: { header: "X-Signature", secretEnv: "S" } })).toEqual([
      expect.stringMatching(/^events\.verification\.scheme: /),
    ]);
    expect(problems({ jobIdPath: "id", verification: { ...hmac, scheme: "rsa" } })).toEqual([
      expect.stringMatching(/^events\.verification\.scheme: /),
    ]);
    const { header: _header, ...withoutHeader } = hmac;
    expect(problems({ jobIdPath: "id", verification: withoutHeader })).toEqual([
      expect.stringMatching(/^events\.verification\.header: /),
    ]);
  });

  it("name each bad field of the signature", () => {
    const bad = (change: Record<string, unknown>) =>
      problems({ jobIdPath: "id", verification: { ...hmac, ...change } });
    expect(bad({ header: "X Signature" })).toEqual(["events.verification.header: expected an HTTP header name"]);
    expect(bad({ encoding: "base32" })).toEqual([expect.stringMatching(/^events\.verification\.encoding: /)]);
    expect(bad({ prefix: "" })).toEqual([expect.stringMatching(/^events\.verification\.prefix: /)]);
    expect(bad({ timestampHeader: "X:Timestamp" })).toEqual([
      "events.verification.timestampHeader: expected an HTTP header name",
    ]);
    expect(bad({ timestampHeader: "X-Timestamp", toleranceSeconds: 0 })).toEqual([
      expect.stringMatching(/^events\.verification\.toleranceSeconds: /),
    ]);
    expect(bad({ toleranceSeconds: 60 })).toEqual([
      "events.verification.toleranceSeconds: only with timestampHeader: without a signed timestamp there is no time to check",
    ]);
    expect(bad({ secretEnv: "not a name" })).toEqual([
      "events.verification.secretEnv: expected an environment variable name",
    ]);
  });

  it("want exactly one of secret and secretEnv, and a secret of 16 characters or more", () => {
    const { secretEnv: _variable, ...withoutSecret } = hmac;
    expect(problems({ jobIdPath: "id", verification: withoutSecret })).toEqual([
      "events.verification.secretEnv: give exactly one of secret or secretEnv (the name of an environment variable)",
    ]);
    expect(problems({ jobIdPath: "id", verification: { ...hmac, secret } })).toEqual([
      "events.verification.secret: give exactly one of secret or secretEnv (the name of an environment variable)",
    ]);
    const short = problems({ jobIdPath: "id", verification: { ...withoutSecret, secret: "too-short" } });
    expect(short).toEqual(["events.verification.secret: at least 16 characters"]);
    // The problem names the field, never the value.
    expect(short.join()).not.toContain("too-short");
    expect(problems({ jobIdPath: "id", verification: { ...withoutSecret, secret } })).toEqual([]);
  });

  it("name the shared-secret scheme's fields too", () => {
    const shared = { scheme: "shared-secret", header: "X-Callback-Token", secretEnv: "RENDER_CALLBACK_SECRET" };
    expect(problems({ jobIdPath: "id", verification: shared })).toEqual([]);
    expect(problems({ jobIdPath: "id", verification: { ...shared, header: "" } })).toEqual([
      "events.verification.header: expected an HTTP header name",
    ]);
    expect(
      problems({ jobIdPath: "id", verification: { scheme: "shared-secret", header: "X-Callback-Token" } }),
    ).toEqual([
      "events.verification.secretEnv: give exactly one of secret or secretEnv (the name of an environment variable)",
    ]);
  });

  it("check every path's syntax, and take one delivery id source", () => {
    const paths = problems({
      jobIdPath: "$.jobs[?(@.state==)].id",
      statusPath: "$.state[?(@ ==)]",
      updatedAtPath: "$.at[?(@ ==)]",
      deliveryIdPath: "$.delivery[?(@ ==)]",
      verification: hmac,
    });
    expect(paths).toEqual([
      expect.stringMatching(/^events\.jobIdPath: the JSONPath .* cannot be evaluated/),
      expect.stringMatching(/^events\.statusPath: the JSONPath .* cannot be evaluated/),
      expect.stringMatching(/^events\.updatedAtPath: the JSONPath .* cannot be evaluated/),
      expect.stringMatching(/^events\.deliveryIdPath: the JSONPath .* cannot be evaluated/),
    ]);
    expect(
      problems({ jobIdPath: "id", deliveryIdHeader: "X-Delivery", deliveryIdPath: "delivery", verification: hmac }),
    ).toEqual(["events.deliveryIdPath: give deliveryIdHeader or deliveryIdPath, not both"]);
    expect(problems({ jobIdPath: "id", deliveryIdHeader: "X Delivery", verification: hmac })).toEqual([
      "events.deliveryIdHeader: expected an HTTP header name",
    ]);
  });

  it("stop the adapter's start naming the variable when the secret's variable is unset or short", () => {
    const config = withEvents({ jobIdPath: "id", verification: hmac });
    const unset = () => restAdapter(config, { environment: { RENDER_TOKEN: "rf-token-0123456789abcdef" } });
    expect(unset).toThrow(AdapterConfigError);
    expect(unset).toThrow(/events\.verification\.secretEnv: environment variable RENDER_CALLBACK_SECRET is not set/);
    const short = () => restAdapter(config, { environment: { ...environment, RENDER_CALLBACK_SECRET: "short-one" } });
    expect(short).toThrow(/events\.verification\.secretEnv: at least 16 characters \(in RENDER_CALLBACK_SECRET\)/);
    expect(short).not.toThrow(/short-one/);
  });

  it("declare the secret, so the core redacts it", () => {
    const adapter = restAdapter(withEvents({ jobIdPath: "id", verification: hmac }), { environment });
    expect(adapter.secrets).toContain(secret);
  });
});
