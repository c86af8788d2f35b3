import { TemplateValueError, lookup, parseTemplate, renderPath, renderScalar } from "./template.js";

/**
 * Turning URL templates into URLs that provably stay on configured origins, and job URLs into the
 * short form kept in the job reference (which travels inside the task id, so it must stay small).
 */

export interface UrlPolicy {
  baseUrl: URL;
  /** Origins besides baseUrl's that a job URL from the upstream may point to. */
  allowedOrigins: ReadonlySet<string>;
}

/** A URL the upstream handed us points somewhere the config does not allow. */
export class ForeignOriginError extends Error {
  /** The origin refused: for the debug log; the message, which reaches the client, does not name it. */
  readonly origin: string;
  constructor(origin: string) {
    super("the upstream pointed to an origin that is neither baseUrl's nor in allowedOrigins");
    this.name = "ForeignOriginError";
    this.origin = origin;
  }
}

function basePath(baseUrl: URL): string {
  return baseUrl.pathname.replace(/\/+$/, "");
}

/** Append an already-encoded path to the base URL's path. */
export function joinBase(policy: UrlPolicy, encodedPath: string): URL {
  const path = encodedPath.startsWith("/") ? encodedPath : `/${encodedPath}`;
  const url = new URL(`${policy.baseUrl.origin}${basePath(policy.baseUrl)}${path}`);
  // Encoding already rules this out; the check makes it a property rather than an argument.
  if (url.origin !== policy.baseUrl.origin || !url.pathname.startsWith(basePath(policy.baseUrl))) {
    throw new TemplateValueError("url", "the path would leave baseUrl");
  }
  return url;
}

/** A job URL from the upstream (a header or a body field), absolute or relative to baseUrl. */
export function resolveJobUrl(policy: UrlPolicy, value: string): URL {
  let url: URL;
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith("//")) {
    url = new URL(value, policy.baseUrl);
  } else if (value.startsWith("/")) {
    // Like an HTTP Location header: an absolute path on the base URL's origin.
    url = new URL(value, policy.baseUrl.origin);
  } else {
    url = joinBase(policy, value);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ForeignOriginError(url.protocol);
  if (url.origin !== policy.baseUrl.origin && !policy.allowedOrigins.has(url.origin))
    throw new ForeignOriginError(url.origin);
  return url;
}

/** The short form of a job URL for the reference: a path when on baseUrl's origin, else the whole URL. */
export function compactJobUrl(policy: UrlPolicy, url: URL): string {
  return url.origin === policy.baseUrl.origin ? `${url.pathname}${url.search}` : url.href;
}

/** Values the upstream handed us (the job reference, a status body) may be whole URLs; input and answers may not. */
function readsUpstreamValue(path: string): boolean {
  return /^\$?\.?(job|body)\b/.test(path.trim());
}

/**
 * A template that starts with a placeholder over an upstream value and has only literal text after it:
 * `{{job.id}}`, `{{body.links.status}}`, `{{job.id}}:cancel`. Its value may be a whole URL.
 */
function upstreamUrlTemplate(template: string): { path: string; suffix: string } | undefined {
  const [first, ...rest] = parseTemplate(template);
  if (first?.kind !== "value" || first.multiSegment || !readsUpstreamValue(first.path)) return undefined;
  let suffix = "";
  for (const part of rest) {
    if (part.kind !== "literal") return undefined;
    suffix += part.text;
  }
  return { path: first.path, suffix };
}

/** An absolute URL or an absolute path, as a status URL kept in the job reference is. */
function isUrlValue(value: unknown): value is string {
  return typeof value === "string" && (value.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(value));
}

/** Add a literal suffix (`:cancel`, `/cancel`) to a URL's path, before its query; it may not climb out of it. */
function appendToPath(url: URL, suffix: string, path: string): URL {
  const jobPath = url.pathname;
  url.pathname = `${jobPath}${suffix}`;
  if (!url.pathname.startsWith(jobPath))
    throw new TemplateValueError(path, "the text after it would leave the job's URL");
  return url;
}

/**
 * Build the URL of a request. A template that is a single placeholder over an upstream value (`{{job.id}}`,
 * `{{body.next}}`) takes a whole URL from it, checked against the allowed origins; followed by literal text
 * (`{{job.id}}:cancel`) and given a URL or an absolute path, the text is added to that URL's path (its query
 * kept). Any other template, including a single placeholder over tool input or an answer, or a plain job id
 * before a suffix, is a path under baseUrl with encoded values.
 */
export function buildUrl(
  policy: UrlPolicy,
  template: string,
  query: Record<string, string> | undefined,
  context: object,
): URL {
  const upstream = upstreamUrlTemplate(template);
  const value = upstream ? lookup(upstream.path, context) : undefined;
  let url: URL;
  if (upstream && upstream.suffix === "") {
    if (typeof value !== "string" || value === "") throw new TemplateValueError(upstream.path, "expected a URL");
    url = resolveJobUrl(policy, value);
  } else if (upstream && isUrlValue(value)) {
    url = appendToPath(resolveJobUrl(policy, value), upstream.suffix, upstream.path);
  } else {
    url = joinBase(policy, renderPath(template, context));
  }
  for (const [name, valueTemplate] of Object.entries(query ?? {})) {
    const value = renderScalar(valueTemplate, context);
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url;
}
