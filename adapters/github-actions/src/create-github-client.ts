import type { Octokit } from "@octokit/rest";
import { createConditionalFetch } from "./conditional-fetch.js";
import type { RateBudget } from "./rate-budget.js";
import { upstreamRequestStarted } from "@jobtasks/core/adapter-utils";

/** Only the plain Octokit surface is used (octokit.request), so the plugin types need not leak. */
export interface GithubClient {
  request(
    route: string,
    parameters: Record<string, unknown>,
  ): Promise<{ status: number; data: unknown; headers: unknown }>;
}

export type GithubCredentials =
  | { kind: "token"; token: string }
  | { kind: "app"; appId: string | number; privateKey: string; installationId: string | number };

/** One HTTP request that really went to GitHub (retries and conditional 304s included). */
export interface UpstreamRequestEvent {
  method: string;
  /** Path and query, without the host: "/repos/octo/app/actions/runs/42/attempts/1". */
  path: string;
  status: number;
  /** A 304: answered from the ETag cache, free of rate limit. */
  notModified: boolean;
}

export interface GithubClientSettings {
  credentials: GithubCredentials;
  baseUrl: string;
  budget: RateBudget;
  maxRateLimitWaitMs: number;
  requestRetries: number;
  fetch?: typeof fetch;
  onUpstreamRequest?: (event: UpstreamRequestEvent) => void;
  /**
   * Called with each credential sent that the settings do not hold: with App auth, the App's JWTs and the
   * installation tokens that auth-app fetches and renews, so they can be redacted like a configured token.
   */
  onCredential?: (credential: string) => void;
}

/**
 * A request option of ours: false makes throttling report a rate limit at once instead of waiting it out
 * (status reads, whose waits the server's reader owns). octokit passes unknown request options through.
 */
export const waitOutRateLimits = "waitOutRateLimits";

// Each client gets its own throttling buckets: the plugin shares them process-wide by id otherwise.
let clientCount = 0;

/**
 * An Octokit with GitHub's rate-limit etiquette built in: throttling (waits out a primary or secondary
 * limit when the wait is short, otherwise gives up so the task can report it and slow its polling), retry
 * of server errors but never of 409 or 429 (throttling owns those) nor of a POST (github-actions-api.ts
 * turns retries off for them: none is idempotent) nor of a status read (the server's reader retries
 * those), and conditional GETs. Under all of them, a metered fetch counts what really reaches GitHub.
 */
export function createGithubClient(settings: GithubClientSettings): GithubClient {
  clientCount += 1;
  const id = clientCount;
  // Octokit and its plugins load on the first request, not with the adapter: a stdio server that an agent
  // host spawns answers its first messages (discover, tools/list) without them.
  let octokit: Promise<Octokit> | undefined;
  return {
    request: async (route, parameters) => (await (octokit ??= buildOctokit(settings, id))).request(route, parameters),
  };
}

let octokitWithEtiquette: Promise<ReturnType<typeof Octokit.plugin>> | undefined;

async function buildOctokit(settings: GithubClientSettings, id: number): Promise<Octokit> {
  const [OctokitWithEtiquette, { createAppAuth }] = await Promise.all([
    (octokitWithEtiquette ??= Promise.all([
      import("@octokit/rest"),
      import("@octokit/plugin-throttling"),
      import("@octokit/plugin-retry"),
    ]).then(([{ Octokit }, { throttling }, { retry }]) => Octokit.plugin(throttling, retry))),
    import("@octokit/auth-app"),
  ]);
  const shouldWait = (
    retryAfterSeconds: number,
    options: { request?: object },
    _octokit: unknown,
    retryCount: number,
  ): boolean =>
    retryCount < 1 &&
    retryAfterSeconds * 1000 <= settings.maxRateLimitWaitMs &&
    (options.request as Record<string, unknown> | undefined)?.[waitOutRateLimits] !== false;
  const metered = createMeteredFetch(settings.fetch, settings.budget, settings.onUpstreamRequest);
  const fetchChain = createConditionalFetch(
    settings.onCredential ? reportCredentials(metered, settings.onCredential) : metered,
  );
  const authOptions =
    settings.credentials.kind === "token"
      ? { auth: settings.credentials.token }
      : {
          authStrategy: createAppAuth,
          auth: {
            appId: settings.credentials.appId,
            privateKey: settings.credentials.privateKey,
            installationId: settings.credentials.installationId,
          },
        };
  const octokit = new OctokitWithEtiquette({
    ...authOptions,
    baseUrl: settings.baseUrl.replace(/\/+$/, ""),
    userAgent: "jobtasks-github-actions",
    request: { fetch: fetchChain },
    // Octokit logs warnings with request details to the console by default; the adapter logs for itself.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    throttle: {
      id: `jobtasks-github-actions-${id}`,
      onRateLimit: shouldWait,
      onSecondaryRateLimit: shouldWait,
    },
    retry: {
      retries: settings.requestRetries,
      // The plugin's default list lacks 429: with throttling in place it would retry throttled calls twice.
      // 409 (a conflict: "cannot cancel a finished run") will not change on a second try.
      doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451],
    },
  });
  observeRequests(octokit, settings.credentials.kind);
  return octokit;
}

/**
 * Each request as the server's telemetry sees it: outside the retry and throttling plugins (one record per
 * call, its retries inside), named by Octokit's own route template ("/repos/{owner}/{repo}/actions/runs/
 * {run_id}"), which holds no owner, repository or id. The rate budget the answer reports goes with it.
 */
function observeRequests(octokit: Octokit, credential: GithubCredentials["kind"]): void {
  octokit.hook.wrap("request", async (request, options) => {
    const method = String(options.method);
    const urlTemplate = String(options.url);
    const observed = upstreamRequestStarted({ operation: `${method} ${urlTemplate}`, method, urlTemplate });
    Object.assign(options.headers, observed.headers);
    try {
      const response = await request(options);
      observed.end({ status: response.status, ...rateLimitOf(response.headers, credential) });
      return response;
    } catch (error) {
      const failure = error as { status?: unknown; response?: { headers?: Record<string, unknown> } };
      observed.end({
        ...(typeof failure.status === "number" ? { status: failure.status } : { errorType: "connection" }),
        ...rateLimitOf(failure.response?.headers, credential),
      });
      throw error;
    }
  });
}

function rateLimitOf(headers: Record<string, unknown> | undefined, credential: string) {
  const remaining = Number(headers?.["x-ratelimit-remaining"] ?? Number.NaN);
  const limit = Number(headers?.["x-ratelimit-limit"] ?? Number.NaN);
  if (!Number.isFinite(remaining)) return {};
  return { rateLimit: { remaining, ...(Number.isFinite(limit) ? { limit } : {}), credential } };
}

/** A fetch that reports the credential of every request's Authorization header ("token X", "bearer X"). */
function reportCredentials(next: typeof fetch, onCredential: (credential: string) => void): typeof fetch {
  return (input, init) => {
    const authorization = new Headers(init?.headers).get("authorization");
    const credential = authorization?.split(" ").at(-1);
    if (credential) onCredential(credential);
    return next(input, init);
  };
}

/**
 * The innermost fetch: counts every request that reaches GitHub and reads the rate budget off each answer.
 * Resolves the underlying fetch at call time, so nock (which patches the global fetch) sees the calls.
 */
function createMeteredFetch(
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
