import { EtagMemory } from "@jobtasks/core/adapter-utils";

/**
 * A fetch wrapper that makes every GET conditional: it remembers each answer's ETag and body, sends
 * If-None-Match next time, and turns GitHub's 304 (which costs no rate limit) back into the remembered 200
 * answer, so octokit and everything above it never see the difference. The cache is bounded and only an
 * optimisation: losing it costs one full answer per URL.
 */

export interface ConditionalFetchOptions {
  /**
   * Most answers kept (least recently used go first). Default 5,000: a followed run is two (its attempt and
   * its jobs), so 2,500 runs keep their 304s; the byte bound below still holds the memory.
   */
  maxEntries?: number;
  /** Larger bodies are not kept (default 512 KiB). */
  maxBodyBytes?: number;
  /** Most bytes of bodies kept in all (default 32 MiB): a bound on the memory, whatever the answers' size. */
  maxTotalBytes?: number;
  /** URLs never made conditional (job logs: big, read once, and served from a redirect). */
  exclude?: RegExp;
}

interface CachedAnswer {
  body: string;
  headers: [string, string][];
}

export function createConditionalFetch(next: typeof fetch, options: ConditionalFetchOptions = {}): typeof fetch {
  const maxTotalBytes = options.maxTotalBytes ?? 32 * 1024 * 1024;
  const cache = new EtagMemory<CachedAnswer>({
    maxEntries: options.maxEntries ?? 5000,
    maxTotalBytes,
    maxEntryBytes: Math.min(options.maxBodyBytes ?? 512 * 1024, maxTotalBytes),
  });
  const exclude = options.exclude ?? /\/logs(\?|$)/;

  return async (input, init) => {
    const method = (init?.method ?? "GET").toUpperCase();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (method !== "GET" || exclude.test(url)) return next(input, init);

    const cached = cache.recall(url);
    const headers = new Headers(init?.headers);
    if (cached) headers.set("if-none-match", cached.etag);
    const response = await next(input, { ...init, headers });

    if (response.status === 304 && cached) {
      // Keep the entry fresh in the LRU order, and pass on the new rate-limit headers with the old body.
      cache.confirmed(url);
      const merged = new Headers(cached.answer.headers);
      response.headers.forEach((value, name) => {
        if (name.startsWith("x-ratelimit-") || name === "date") merged.set(name, value);
      });
      return new Response(cached.answer.body, { status: 200, statusText: "OK", headers: merged });
    }

    const etag = response.headers.get("etag");
    if (response.status !== 200 || !etag) {
      if (response.status !== 304) cache.forget(url);
      return response;
    }
    const body = await response.text();
    // An answer too large to keep also forgets the URL's older one.
    cache.remember(url, etag, { body, headers: [...response.headers.entries()] }, Buffer.byteLength(body));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
