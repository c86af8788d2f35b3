import type { RateBudget } from "./rate-budget.js";

/** One HTTP request that really went to GitHub (retries and conditional 304s included). */
export interface UpstreamRequestEvent {
  method: string;
  /** Path and query, without the host: "/repos/octo/app/actions/runs/42/attempts/1". */
  path: string;
  status: number;
  /** A 304: answered from the ETag cache, free of rate limit. */
  notModified: boolean;
}

/**
 * The innermost fetch: counts every request that reaches GitHub and reads the rate budget off each answer.
 * Resolves the underlying fetch at call time, so nock (which patches the global fetch) sees the calls.
 */
export function createMeteredFetch(
  base: typeof fetch | undefined,
  budget: RateBudget,
  onRequest: ((event: UpstreamRequestEvent) => void) | undefined,
): typeof fetch {
  return async (input, init) => {
    const response = await (base ?? globalThis.fetch)(input, init);
    budget.record(response.headers);
    if (onRequest) {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      onRequest({
        method: (init?.method ?? "GET").toUpperCase(),
        path: url.pathname + url.search,
        status: response.status,
        notModified: response.status === 304,
      });
    }
    return response;
  };
}
