/**
 * A fetch wrapper that makes every GET conditional: it remembers each answer's ETag and body, sends
 * If-None-Match next time, and turns GitHub's 304 (which costs no rate limit) back into the remembered 200
 * answer, so octokit and everything above it never see the difference. The cache is bounded and only an
 * optimisation: losing it costs one full answer per URL.
 */

export interface ConditionalFetchOptions {
  /** Most answers kept (least recently used go first). Default 500. */
  maxEntries?: number;
  /** Larger bodies are not kept (default 512 KiB). */
  maxBodyBytes?: number;
  /** URLs never made conditional (job logs: big, read once, and served from a redirect). */
  exclude?: RegExp;
}

interface CachedAnswer {
  etag: string;
  body: string;
  headers: [string, string][];
}

export function createConditionalFetch(next: typeof fetch, options: ConditionalFetchOptions = {}): typeof fetch {
  const maxEntries = options.maxEntries ?? 500;
  const maxBodyBytes = options.maxBodyBytes ?? 512 * 1024;
  const exclude = options.exclude ?? /\/logs(\?|$)/;
  const cache = new Map<string, CachedAnswer>();

  return async (input, init) => {
    const method = (init?.method ?? "GET").toUpperCase();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (method !== "GET" || exclude.test(url)) return next(input, init);

    const cached = cache.get(url);
    const headers = new Headers(init?.headers);
    if (cached) headers.set("if-none-match", cached.etag);
    const response = await next(input, { ...init, headers });

    if (response.status === 304 && cached) {
      // Keep the entry fresh in the LRU order, and pass on the new rate-limit headers with the old body.
      cache.delete(url);
      cache.set(url, cached);
      const merged = new Headers(cached.headers);
      response.headers.forEach((value, name) => {
        if (name.startsWith("x-ratelimit-") || name === "date") merged.set(name, value);
      });
      return new Response(cached.body, { status: 200, statusText: "OK", headers: merged });
    }

    const etag = response.headers.get("etag");
    if (response.status !== 200 || !etag) {
      if (response.status !== 304) cache.delete(url);
      return response;
    }
    const body = await response.text();
    if (Buffer.byteLength(body) <= maxBodyBytes) {
      cache.delete(url);
      cache.set(url, { etag, body, headers: [...response.headers.entries()] });
      while (cache.size > maxEntries) {
        const oldest = cache.keys().next().value;
        if (oldest === undefined) break;
        cache.delete(oldest);
      }
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
