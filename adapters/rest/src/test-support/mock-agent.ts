import { MockAgent } from "undici";

/** A MockAgent that refuses real network access, so a missing interceptor fails the test loudly. */
export function mockAgent(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
}

/** What one intercepted request carried. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

function lowerHeaders(headers: unknown): Record<string, string> {
  const flat: Record<string, string> = {};
  if (headers && typeof headers === "object") {
    const entries = Array.isArray(headers)
      ? (headers as string[]).reduce<[string, string][]>(
          (pairs, value, index, all) => (index % 2 === 0 ? [...pairs, [value, String(all[index + 1])]] : pairs),
          [],
        )
      : Object.entries(headers as Record<string, unknown>).map(
          ([name, value]) => [name, String(value)] as [string, string],
        );
    for (const [name, value] of entries) flat[name.toLowerCase()] = value;
  }
  return flat;
}

/** Turn what a MockAgent reply callback receives into a SeenRequest. */
export function seen(options: { method: string; path: string; headers?: unknown; body?: unknown }): SeenRequest {
  const text =
    typeof options.body === "string"
      ? options.body
      : options.body === undefined || options.body === null
        ? ""
        : String(options.body);
  return {
    method: options.method,
    path: options.path,
    headers: lowerHeaders(options.headers),
    body: text === "" ? undefined : JSON.parse(text),
  };
}
