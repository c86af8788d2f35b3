/**
 * The SDK gives every tools/call result without `content` an empty `content: []` on its way out, task
 * results included. A CreateTaskResult is the Task fields plus resultType "task", nothing else, so the
 * transports take that empty array back out. Any other message passes untouched.
 */
export function stripTaskResultContent<T>(message: T): T {
  const result = (message as { result?: Record<string, unknown> } | null)?.result;
  if (!result || result["resultType"] !== "task") return message;
  const content = result["content"];
  if (!Array.isArray(content) || content.length > 0) return message;
  const { content: _emptyContent, ...task } = result;
  return { ...(message as object), result: task } as T;
}

/** The same, for a whole HTTP response from the SDK's handler (only plain JSON answers to tools/call). */
export async function stripTaskResultContentFromResponse(request: Request, response: Response): Promise<Response> {
  if (request.headers.get("mcp-method") !== "tools/call") return response;
  if (!(response.headers.get("content-type") ?? "").startsWith("application/json")) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  const stripped = stripTaskResultContent(body);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(stripped === body ? text : JSON.stringify(stripped), { status: response.status, headers });
}
