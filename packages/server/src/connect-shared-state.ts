import type { RedisSharedStateOptions } from "./redis-shared-state.js";
import type { SharedState } from "./shared-state.js";

/**
 * The package's way into Redis shared state: the Redis client and everything built on it load on this
 * call, so a server without `server.redis` (every stdio start) never parses any of it.
 */
export async function connectRedisSharedState(options: RedisSharedStateOptions): Promise<SharedState> {
  const { connectRedisSharedState: connect } = await import("./redis-shared-state.js");
  return connect(options);
}
