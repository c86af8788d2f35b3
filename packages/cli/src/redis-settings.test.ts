import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { readRedisSettings } from "./redis-settings.js";
import { serverSettingsSchema } from "./config-schema.js";

const server = (redis?: unknown) => serverSettingsSchema.parse(redis === undefined ? {} : { redis });

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("readRedisSettings", () => {
  it("shares nothing without server.redis or JOBTASKS_REDIS_URL", () => {
    expect(readRedisSettings(server(), {})).toBeUndefined();
  });

  it("takes the URL from the config file, JOBTASKS_REDIS_URL over it, and the password apart", () => {
    expect(readRedisSettings(server({ url: "redis://127.0.0.1:6379", keyPrefix: "staging" }), {})).toEqual({
      url: "redis://127.0.0.1:6379",
      keyPrefix: "staging",
      commandTimeoutMs: 50,
    });
    expect(
      readRedisSettings(server({ url: "redis://127.0.0.1:6379" }), {
        JOBTASKS_REDIS_URL: "rediss://cache.internal:6380",
        JOBTASKS_REDIS_PASSWORD: "redis-password-kept-apart",
      }),
    ).toEqual({
      url: "rediss://cache.internal:6380",
      password: "redis-password-kept-apart",
      keyPrefix: "main",
      commandTimeoutMs: 50,
    });
  });

  it("refuses a URL that is not redis:// or rediss://, naming the field and never repeating the URL", () => {
    const fromEnvironment = configError(() =>
      readRedisSettings(server(), { JOBTASKS_REDIS_URL: "http://user:hunter2-password@cache:6379" }),
    );
    expect(fromEnvironment.message).toContain("JOBTASKS_REDIS_URL");
    expect(fromEnvironment.message).not.toContain("hunter2");
    expect(() => server({ url: "memcached://cache:11211" })).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(configError(() => readRedisSettings(server({ keyPrefix: "x" }), {})).message).toContain("server.redis.url");
  });

  it("refuses a key prefix that would run into the key's other parts", () => {
    expect(() => server({ url: "redis://cache:6379", keyPrefix: "a:b" })).toThrow(/letters, digits/);
  });
});
