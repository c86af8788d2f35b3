import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import { isPlainObject } from "@jobtasks/core/adapter-utils";
import { classifyInboundRequest, isJsonContentType } from "@modelcontextprotocol/server";
import { clientCapabilitiesKey, declaresTasksExtension } from "./declares-tasks-extension.js";
import type { TaskService } from "./task-service.js";
import type { AuthenticatedCaller } from "./access-policy.js";
import type { RequestSpan } from "./request-span.js";

/**
 * tasks/get is what pollers send, over and over. Through the SDK each one builds a Server, a per-request
 * transport and a Web Request, and zod re-validates the envelope, the params and the answer. This path
 * answers the one request shape that is well formed beyond doubt, a 2026-07-28 tasks/get whose headers
 * agree with its body and whose _meta declares the tasks extension, with the same bytes the SDK would
 * send. Everything else (a missing or odd header, an unknown key, a bad envelope, an id that does not
 * open, any error at all) is not answered here: it goes on to the SDK, which owns every error answer.
 * fast-tasks-get.test.ts sends the same requests both ways and compares the answers byte for byte.
 */

export const fastPathProtocolVersion = "2026-07-28";

const protocolVersionKey = "io.modelcontextprotocol/protocolVersion";
const clientInfoKey = "io.modelcontextprotocol/clientInfo";
const envelopeKeys = new Set([protocolVersionKey, clientInfoKey, clientCapabilitiesKey]);

export interface FastTasksGetOptions {
  service: TaskService;
  serverInfo: { name: string; version: string };
}

export interface FastTasksGet {
  /** The task id of a tasks/get (routeRequest asks for every one) this path may answer; else undefined. */
  servableTaskId(headers: IncomingHttpHeaders, body: unknown): string | undefined;
  /**
   * Answer the request and return true, or return false, having written nothing, for the SDK to answer.
   * `requestSpan`: the request's span, for the snapshot read to be parented to (telemetry).
   */
  serve(
    response: ServerResponse,
    body: unknown,
    taskId: string,
    caller: AuthenticatedCaller,
    requestSpan?: RequestSpan,
  ): Promise<boolean>;
}

export function createFastTasksGet(options: FastTasksGetOptions): FastTasksGet {
  const { service } = options;
  const serverInfoJson = JSON.stringify({ "io.modelcontextprotocol/serverInfo": options.serverInfo });
  // A client sends the same _meta on every request, so the SDK's own verdict on it is asked once per
  // distinct envelope; bounded, so that clients sending ever new envelopes cost memory no more than 256 of them.
  const envelopeVerdicts = new LRUCache<string, boolean>({ max: 256 });

  const envelopeServedHere = (meta: Record<string, unknown>): boolean => {
    const key = JSON.stringify(meta);
    let verdict = envelopeVerdicts.get(key);
    if (verdict === undefined) {
      verdict = sdkServesAsModernTasksGet(meta) && declaresTasksExtension(meta);
      envelopeVerdicts.set(key, verdict);
    }
    return verdict;
  };

  return {
    servableTaskId(headers, body) {
      const taskId = servableTaskId(headers, body);
      if (taskId === undefined) return undefined;
      const meta = (body as { params: { _meta: Record<string, unknown> } }).params._meta;
      return envelopeServedHere(meta) ? taskId : undefined;
    },

    async serve(response, body, taskId, caller, requestSpan) {
      const controller = new AbortController();
      const abort = () => controller.abort();
      response.once("close", abort);
      let task: Record<string, unknown>;
      try {
        const scopes = caller.scopes !== undefined ? { scopes: caller.scopes } : {};
        task = (await service.getTask(taskId, {
          principal: caller.principal,
          ...scopes,
          signal: controller.signal,
          requestSpan,
        })) as unknown as Record<string, unknown>;
      } catch {
        response.off("close", abort);
        // The client left: nobody reads an answer. Any other failure is the SDK's to answer (it asks again;
        // a task that does not open costs no upstream read, and errors are rare).
        return controller.signal.aborted;
      }
      response.off("close", abort);
      const id = JSON.stringify((body as { id: string | number }).id);
      // The SDK's layout: result first, with resultType, the task, then the server's identity in _meta. A
      // task with a _meta of its own (the job's progress) keeps it where it stands, the identity added to it.
      const taskMeta = task["_meta"];
      const result =
        taskMeta === undefined
          ? `${JSON.stringify({ resultType: "complete", ...task }).slice(0, -1)},"_meta":${serverInfoJson}}`
          : JSON.stringify({
              resultType: "complete",
              ...task,
              _meta: { ...(taskMeta as object), "io.modelcontextprotocol/serverInfo": options.serverInfo },
            });
      const answer = `{"result":${result},"jsonrpc":"2.0","id":${id}}`;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(answer);
      return true;
    },
  };
}

/** The task id of a request this path may answer, judged from what varies per request; else undefined. */
function servableTaskId(headers: IncomingHttpHeaders, body: unknown): string | undefined {
  if (!isJsonContentType(headers["content-type"] ?? null)) return undefined;
  const accept = headers.accept;
  if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream"))
    return undefined;
  if (headers["mcp-protocol-version"] !== fastPathProtocolVersion || headers["mcp-method"] !== "tasks/get")
    return undefined;
  if (!isPlainObject(body) || !hasExactKeys(body, ["jsonrpc", "id", "method", "params"])) return undefined;
  if (body["jsonrpc"] !== "2.0") return undefined;
  const id = body["id"];
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  const params = body["params"];
  if (!isPlainObject(params) || !hasExactKeys(params, ["taskId", "_meta"])) return undefined;
  const taskId = params["taskId"];
  const meta = params["_meta"];
  if (typeof taskId !== "string" || !isPlainObject(meta)) return undefined;
  if (!Object.keys(meta).every((key) => envelopeKeys.has(key)) || meta[protocolVersionKey] !== fastPathProtocolVersion)
    return undefined;
  // Mcp-Name must spell the id itself; an encoded (=?base64?...?=) or differing header is the SDK's to judge.
  if (headers["mcp-name"] !== taskId || taskId.startsWith("=?")) return undefined;
  return taskId;
}

/**
 * Ask the SDK's own classifier whether it serves this envelope as a modern request with our headers; the
 * id and task id, which vary, are checked by servableTaskId, and do not change its verdict.
 */
function sdkServesAsModernTasksGet(meta: Record<string, unknown>): boolean {
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: fastPathProtocolVersion,
    mcpMethodHeader: "tasks/get",
    mcpNameHeader: "t",
    body: { jsonrpc: "2.0", id: 0, method: "tasks/get", params: { taskId: "t", _meta: meta } },
  });
  return (
    outcome.kind === "modern" &&
    outcome.messageKind === "request" &&
    outcome.classification.revision === fastPathProtocolVersion
  );
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}
