import { ConfigError } from "@jobtasks/core";
import type { ServerSettings as ConfigServerSettings } from "./config-schema.js";

/** Where the replicas' shared state lives, as the config file and the environment give it. */
export interface RedisSettings {
  url: string;
  password?: string;
  keyPrefix: string;
  commandTimeoutMs: number;
}

/**
 * `server.redis` with JOBTASKS_REDIS_URL (which overrides `server.redis.url`, and alone turns sharing on
 * with the defaults) and JOBTASKS_REDIS_PASSWORD (a password kept apart from the URL). Undefined: no
 * sharing. An error names the field and never repeats the URL, which may hold a password.
 */
export function readRedisSettings(
  server: Pick<ConfigServerSettings, "redis">,
  environment: Readonly<Record<string, string | undefined>>,
): RedisSettings | undefined {
  const fromEnvironment = environment["JOBTASKS_REDIS_URL"] || undefined;
  const url = fromEnvironment ?? server.redis?.url;
  if (url === undefined) {
    if (server.redis !== undefined)
      throw new ConfigError("server.redis.url", "give the Redis URL here or in JOBTASKS_REDIS_URL");
    return undefined;
  }
  if (!isRedisUrl(url)) {
    throw new ConfigError(
      fromEnvironment !== undefined ? "JOBTASKS_REDIS_URL" : "server.redis.url",
      "expected a redis:// or rediss:// URL",
    );
  }
  const password = environment["JOBTASKS_REDIS_PASSWORD"] || undefined;
  return {
    url,
    ...(password !== undefined ? { password } : {}),
    keyPrefix: server.redis?.keyPrefix ?? "main",
    commandTimeoutMs: server.redis?.commandTimeoutMs ?? 50,
  };
}

function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== "";
  } catch {
    return false;
  }
}
