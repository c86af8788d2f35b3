import { AdapterConfigError } from "@jobtasks/core";

/** How to build a demo adapter. */
export interface DemoAdapterOptions {
  /**
   * Where the demo job API listens, e.g. http://127.0.0.1:4010 (what `pnpm demo:api` prints). Required.
   * Credentials in the URL (`http://user:password@host`) are sent as HTTP Basic authentication and kept
   * out of every message.
   */
  baseUrl: string;
  /** Suggested client polling interval, in milliseconds. Default 1000. */
  pollIntervalMs?: number;
  /** Name of the MCP tool. Default "demo_pipeline". */
  toolName?: string;
  /** HTTP transport; tests inject one. Default: the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/** The options after validation, in the form the adapter uses. */
export interface ResolvedDemoAdapterOptions {
  /** The base URL without credentials and without a trailing slash: safe to show. */
  baseUrl: string;
  /** `Basic ...` when the configured URL carried credentials. */
  authorization: string | undefined;
  /** Everything that must never appear in a message, a log line or a result. */
  secrets: string[];
  pollIntervalMs: number;
  toolName: string;
  fetch: typeof globalThis.fetch;
}

const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/;
const baseUrlHint = "the demo API's URL, e.g. http://127.0.0.1:4010 (start the API with `pnpm demo:api`)";

function resolveBaseUrl(value: unknown): Pick<ResolvedDemoAdapterOptions, "baseUrl" | "authorization" | "secrets"> {
  if (typeof value !== "string" || value.trim() === "")
    throw new AdapterConfigError("baseUrl", `required: ${baseUrlHint}`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    // Neither the value nor the parser's error (which carries the input) is passed on: it may hold a password.
    throw new AdapterConfigError("baseUrl", `not a valid URL; expected ${baseUrlHint}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AdapterConfigError("baseUrl", `must be an http or https URL, got ${url.protocol}`);
  }
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const authorization =
    username || password ? `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` : undefined;
  const secrets = [password, url.password, authorization].filter((secret): secret is string => Boolean(secret));
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return { baseUrl: url.href.replace(/\/+$/, ""), authorization, secrets };
}

/** Validate options when the adapter is built, so a mistake shows at start-up with the option's name. */
export function resolveDemoAdapterOptions(options: DemoAdapterOptions): ResolvedDemoAdapterOptions {
  if (typeof options !== "object" || options === null)
    throw new AdapterConfigError("options", "expected an object with baseUrl");
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs < 1) {
    throw new AdapterConfigError("pollIntervalMs", "must be a positive integer number of milliseconds");
  }
  const toolName = options.toolName ?? "demo_pipeline";
  if (typeof toolName !== "string" || !toolNamePattern.test(toolName)) {
    throw new AdapterConfigError("toolName", "must be 1 to 128 characters from A-Z a-z 0-9 _ - .");
  }
  const fetchFunction = options.fetch ?? globalThis.fetch;
  if (typeof fetchFunction !== "function") throw new AdapterConfigError("fetch", "must be a fetch-compatible function");
  return { ...resolveBaseUrl(options.baseUrl), pollIntervalMs, toolName, fetch: fetchFunction };
}
