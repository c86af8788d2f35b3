import type { IncomingHttpHeaders } from "node:http";
import { classifyInboundRequest } from "@modelcontextprotocol/server";

/**
 * SEP-2243 custom headers: a tool's input schema may mark a property with `x-mcp-header: "Region"`, and a
 * Streamable HTTP client then mirrors that argument into `Mcp-Param-Region` so routers can read it
 * without parsing the body. The server must reject a tools/call whose header is missing or disagrees
 * with the body (400, JSON-RPC -32020 HeaderMismatch), since a router may already have acted on it.
 * The SDK checks this for McpServer only; jobtasks serves its low-level Server, so the HTTP entry does.
 */

const headerMismatchCode = -32020;
const base64Canonical = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

interface HeaderParameter {
  path: string[];
  header: string;
  type: unknown;
}

/** The x-mcp-header properties of a JSON Schema, reached through chains of `properties` only. */
export function headerParametersOf(schema: Record<string, unknown>, path: string[] = []): HeaderParameter[] {
  const properties = schema["properties"];
  if (typeof properties !== "object" || properties === null) return [];
  const found: HeaderParameter[] = [];
  for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof child !== "object" || child === null) continue;
    const property = child as Record<string, unknown>;
    const header = property["x-mcp-header"];
    if (typeof header === "string" && header !== "")
      found.push({ path: [...path, name], header, type: property["type"] });
    found.push(...headerParametersOf(property, [...path, name]));
  }
  return found;
}

/** A header value as the text it carries: `=?base64?...?=` decoded (undefined when not canonical UTF-8 Base64). */
export function decodeParamHeaderValue(value: string): string | undefined {
  if (!(value.startsWith("=?base64?") && value.endsWith("?=") && value.length >= 11)) return value;
  const payload = value.slice("=?base64?".length, -"?=".length);
  if (!base64Canonical.test(payload)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64"));
  } catch {
    return undefined;
  }
}

/**
 * The 400 answer for a modern tools/call (routeRequest hands this every tools/call over HTTP) whose
 * Mcp-Param-* headers do not match its arguments, or undefined when they match (or the check does not apply).
 */
export function mcpParamHeaderMismatch(
  body: unknown,
  headers: IncomingHttpHeaders,
  inputSchemaOf: (toolName: string) => Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const message = body as { id?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (typeof message.params?.name !== "string") return undefined;
  const schema = inputSchemaOf(message.params.name);
  if (!schema) return undefined;
  const parameters = headerParametersOf(schema);
  if (parameters.length === 0) return undefined;
  // Legacy-era clients never send these headers; only a modern request is held to them.
  if (classifyHttpRequest(body, headers).kind !== "modern") return undefined;
  for (const parameter of parameters) {
    const bodyValue = valueAt(message.params.arguments, parameter.path);
    if (bodyValue === undefined || bodyValue === null) continue;
    const expected =
      typeof bodyValue === "boolean"
        ? String(bodyValue)
        : typeof bodyValue === "number" || typeof bodyValue === "string"
          ? String(bodyValue)
          : undefined;
    if (expected === undefined) continue;
    const headerName = `Mcp-Param-${parameter.header}`;
    const field = parameter.path.join(".");
    const raw = firstValue(headers[headerName.toLowerCase()]);
    if (raw === undefined)
      return mismatch(message.id, headerName, `the body carries ${field} but the ${headerName} header is absent`);
    const decoded = decodeParamHeaderValue(raw.trim());
    if (decoded === undefined)
      return mismatch(message.id, headerName, `the ${headerName} header is not valid Base64 of UTF-8 text`);
    const equal =
      typeof bodyValue === "number"
        ? /^-?\d+(\.\d+)?$/.test(decoded) && Number(decoded) === bodyValue
        : decoded === expected;
    if (!equal) return mismatch(message.id, headerName, `the ${headerName} header disagrees with ${field} in the body`);
  }
  return undefined;
}

/** The SDK's own verdict on a POST body and the MCP headers beside it (era, and whether they agree). */
export function classifyHttpRequest(
  body: unknown,
  headers: IncomingHttpHeaders,
): ReturnType<typeof classifyInboundRequest> {
  return classifyInboundRequest({
    httpMethod: "POST",
    body,
    ...present("protocolVersionHeader", headers["mcp-protocol-version"]),
    ...present("mcpMethodHeader", headers["mcp-method"]),
    ...present("mcpNameHeader", headers["mcp-name"]),
  });
}

function mismatch(id: unknown, header: string, detail: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: {
      code: headerMismatchCode,
      message: `Bad Request: the request headers and body disagree: ${detail}`,
      data: { header },
    },
  };
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function present<K extends string>(key: K, value: string | string[] | undefined): Partial<Record<K, string>> {
  const first = firstValue(value);
  return first === undefined ? {} : ({ [key]: first } as Record<K, string>);
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
