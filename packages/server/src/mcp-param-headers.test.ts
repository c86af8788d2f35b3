import { describe, expect, it } from "vitest";
import type { IncomingHttpHeaders } from "node:http";
import { decodeParamHeaderValue, headerParametersOf, mcpParamHeaderMismatch } from "./mcp-param-headers.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    note: { type: "string" },
  },
  required: ["region"],
};
const schemaOf = (name: string) =>
  name === "deploy"
    ? schema
    : name === "plain"
      ? { type: "object", properties: { note: { type: "string" } } }
      : undefined;

function call(args: Record<string, unknown>, name = "deploy") {
  return {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
      },
    },
  };
}

function modernHeaders(extra: IncomingHttpHeaders, name = "deploy"): IncomingHttpHeaders {
  return { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name, ...extra };
}

describe("Mcp-Param headers (SEP-2243)", () => {
  it("finds the x-mcp-header properties of a schema", () => {
    expect(headerParametersOf(schema).map((parameter) => parameter.header)).toEqual(["Region", "Count"]);
  });

  it("accepts headers that match the body, plain or Base64", () => {
    expect(
      mcpParamHeaderMismatch(
        call({ region: "eu-west-1" }),
        modernHeaders({ "mcp-param-region": "eu-west-1" }),
        schemaOf,
      ),
    ).toBeUndefined();
    expect(
      mcpParamHeaderMismatch(
        call({ region: "Hello" }),
        modernHeaders({ "mcp-param-region": "=?base64?SGVsbG8=?=" }),
        schemaOf,
      ),
    ).toBeUndefined();
    expect(
      mcpParamHeaderMismatch(
        call({ region: "x", count: 42 }),
        modernHeaders({ "mcp-param-region": "x", "mcp-param-count": "42.0" }),
        schemaOf,
      ),
    ).toBeUndefined();
  });

  it("takes a value without the whole =?base64?...?= wrapper literally", () => {
    expect(decodeParamHeaderValue("=?base64?SGVsbG8=")).toBe("=?base64?SGVsbG8=");
    expect(
      mcpParamHeaderMismatch(call({ region: "SGVsbG8=" }), modernHeaders({ "mcp-param-region": "SGVsbG8=" }), schemaOf),
    ).toBeUndefined();
  });

  it("expects no header for an argument the body leaves out", () => {
    expect(mcpParamHeaderMismatch(call({ note: "n", region: null }), modernHeaders({}), schemaOf)).toBeUndefined();
  });

  it.each([
    ["a missing header", {}, "absent"],
    ["a header that disagrees", { "mcp-param-region": "us-east-1" }, "disagrees"],
    ["Base64 with bad padding", { "mcp-param-region": "=?base64?SGVsbG8?=" }, "not valid Base64"],
    [
      "Base64 with characters outside its alphabet",
      { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" },
      "not valid Base64",
    ],
  ])("rejects %s with -32020 naming the header", (_case, extra: IncomingHttpHeaders, detail) => {
    const answer = mcpParamHeaderMismatch(call({ region: "Hello" }), modernHeaders(extra), schemaOf) as {
      id: unknown;
      error: { code: number; message: string; data: unknown };
    };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32020);
    expect(answer.error.message).toContain(detail);
    expect(answer.error.data).toEqual({ header: "Mcp-Param-Region" });
  });

  it("leaves other tools and legacy-era requests alone", () => {
    expect(mcpParamHeaderMismatch(call({ note: "n" }, "plain"), modernHeaders({}, "plain"), schemaOf)).toBeUndefined();
    const legacy = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "deploy", arguments: { region: "x" } },
    };
    expect(mcpParamHeaderMismatch(legacy, { "mcp-protocol-version": "2025-11-25" }, schemaOf)).toBeUndefined();
  });
});
