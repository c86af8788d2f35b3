import { describe, expect, it } from "vitest";
import { createConditionalFetch } from "./conditional-fetch.js";

/** A transport that answers each URL with a body of `size` bytes and an ETag, or 304 when it matches. */
function fakeGithub(size: number) {
  const conditional: string[] = [];
  const next = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = String(input);
    const ifNoneMatch = new Headers(init?.headers).get("if-none-match");
    if (ifNoneMatch) {
      conditional.push(url);
      return new Response(null, { status: 304, headers: { etag: ifNoneMatch } });
    }
    return new Response("x".repeat(size), { status: 200, headers: { etag: `"${url}"` } });
  }) as typeof fetch;
  return { next, conditional };
}

describe("createConditionalFetch", () => {
  it("bounds the cache by total bytes, dropping the least recently used answers first", async () => {
    const github = fakeGithub(100 * 1024);
    const fetchWithEtags = createConditionalFetch(github.next, { maxTotalBytes: 350 * 1024 });
    for (const name of ["a", "b", "c", "d"]) await fetchWithEtags(`https://api.github.com/${name}`);
    // Four answers of 100 KiB do not fit in 350 KiB: "a", the oldest, was dropped.
    for (const name of ["d", "c", "b", "a"]) await fetchWithEtags(`https://api.github.com/${name}`);
    expect(github.conditional).not.toContain("https://api.github.com/a");
    expect(github.conditional).toContain("https://api.github.com/d");
  });

  it("keeps at most 32 MiB of answers by default", async () => {
    const github = fakeGithub(500 * 1024);
    const fetchWithEtags = createConditionalFetch(github.next);
    const urls = Array.from({ length: 80 }, (_, index) => `https://api.github.com/jobs/${index}`);
    for (const url of urls) await fetchWithEtags(url);
    for (const url of [...urls].reverse()) await fetchWithEtags(url);
    // 80 answers of 500 KiB are 39 MiB; the first ones no longer fit.
    expect(github.conditional).not.toContain(urls[0]);
    expect(github.conditional).toContain(urls[79]);
  });

  it("keeps the answers of 1,000 followed runs (two URLs each), so each one's next read is a free 304", async () => {
    const github = fakeGithub(4 * 1024);
    const fetchWithEtags = createConditionalFetch(github.next);
    const urls = Array.from({ length: 1000 }, (_, run) => [
      `https://api.github.com/repos/o/r/actions/runs/${run}/attempts/1`,
      `https://api.github.com/repos/o/r/actions/runs/${run}/attempts/1/jobs`,
    ]).flat();
    for (const url of urls) await fetchWithEtags(url);
    for (const url of urls) await fetchWithEtags(url);
    expect(github.conditional).toHaveLength(2000);
  });
});
