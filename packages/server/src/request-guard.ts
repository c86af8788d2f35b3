import type { IncomingMessage } from "node:http";
import { ConfigError } from "@jobtasks/core";
import { isLoopbackHost } from "./loopback-address.js";

/**
 * Checks on the Host and Origin headers of a request to the MCP endpoint, before anything else reads it.
 * Host: a server bound to loopback answers only requests addressed to a loopback name, against DNS
 * rebinding. Origin: browsers send it, and Streamable HTTP asks servers to refuse origins they do not
 * trust, so a web page the user happens to open cannot drive the server; clients outside a browser send
 * none and are not affected.
 */
export interface RequestGuard {
  /** Why the request is refused (one line for the client), or undefined when it may go on. */
  refusal(request: IncomingMessage): string | undefined;
}

/** Whether `value` is an origin as browsers send it: http(s), a host, an optional port, no path. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value.replace(/\/$/, "");
  } catch {
    return false;
  }
}

/** The allowed origins in the form they compare in (scheme, host, port); `field` names a bad entry. */
export function parseAllowedOrigins(values: readonly string[], field = "allowedOrigins"): Set<string> {
  const origins = new Set<string>();
  values.forEach((value, index) => {
    if (!isOrigin(value)) throw new ConfigError(`${field}[${index}]`, `${originExpectation}, got "${value}"`);
    origins.add(new URL(value).origin);
  });
  return origins;
}

export const originExpectation =
  'expected an origin such as "https://app.example.com" (scheme, host and optional port, no path)';

export function createRequestGuard(options: { host: string; allowedOrigins: ReadonlySet<string> }): RequestGuard {
  const loopbackServer = isLoopbackHost(options.host);
  return {
    refusal(request) {
      if (loopbackServer) {
        const hostname = hostnameOf(request.headers.host);
        if (hostname === undefined || !isLoopbackHost(hostname))
          return "Forbidden: a loopback server answers only requests addressed to a loopback name";
      }
      const origin = request.headers.origin;
      if (origin === undefined || origin === "") return undefined;
      const parsed = originOf(origin);
      if (parsed !== undefined && options.allowedOrigins.has(parsed.origin)) return undefined;
      // A page served from this machine may talk to a server on this machine, over plain or secure HTTP.
      if (loopbackServer && parsed !== undefined && isLoopbackHost(parsed.hostname)) return undefined;
      return "Forbidden: requests from this Origin are not allowed";
    },
  };
}

function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}

function originOf(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}
