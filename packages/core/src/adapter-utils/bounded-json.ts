/**
 * Reading a JSON body that comes from outside (an upstream's answer, a client's request) without trusting
 * its size or its shape. JSON.parse reads any depth, but everything after it that walks a value
 * (redaction, JSON.stringify, JSONPath, zod) recurses and overflows the stack somewhere past a few
 * thousand levels; real job records and MCP requests are a few levels deep. A body beyond either bound is
 * refused where it is read, so no later code meets it.
 */

/** Deepest nesting of arrays and objects accepted in a body. */
export const maxJsonDepth = 256;

/** What reading a JSON body came to; the caller words each refusal for its own readers. */
export type JsonRead =
  | { ok: true; value: unknown }
  /** Larger than `maxBytes`: reading stopped there, and the rest of the body was not read. */
  | { ok: false; problem: "too-large" }
  /** Nothing but white space. */
  | { ok: false; problem: "empty" }
  /** Not JSON; `error` is JSON.parse's SyntaxError, whose message quotes an excerpt of the body. */
  | { ok: false; problem: "not-json"; error: unknown }
  | { ok: false; problem: "too-deep" };

/** Whether `value` nests arrays and objects more than `limit` levels deep. Iterative: never overflows. */
export function exceedsJsonDepth(value: unknown, limit: number = maxJsonDepth): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const inner of Array.isArray(item) ? item : Object.values(item)) {
      if (inner !== null && typeof inner === "object") pending.push([inner, depth + 1]);
    }
  }
  return false;
}

/**
 * A body's text, or undefined once it passes `maxBytes`. Leaving early ends the iteration, which destroys
 * a Node stream (undici's body, an IncomingMessage) rather than reading the rest. A failure of the stream
 * itself is thrown as it is.
 */
export async function readBoundedText(
  body: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > maxBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Parse text read from outside, refusing what is empty, not JSON, or nested deeper than `maxDepth`. */
export function parseBoundedJson(text: string, maxDepth: number = maxJsonDepth): JsonRead {
  if (text.trim() === "") return { ok: false, problem: "empty" };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return { ok: false, problem: "not-json", error };
  }
  return exceedsJsonDepth(value, maxDepth) ? { ok: false, problem: "too-deep" } : { ok: true, value };
}

/** Read and parse a JSON body within both bounds (see readBoundedText and parseBoundedJson). */
export async function readBoundedJson(
  body: AsyncIterable<Uint8Array | string>,
  bounds: { maxBytes: number; maxDepth?: number },
): Promise<JsonRead> {
  const text = await readBoundedText(body, bounds.maxBytes);
  if (text === undefined) return { ok: false, problem: "too-large" };
  return parseBoundedJson(text, bounds.maxDepth);
}

/**
 * An upstream delivery's body (a webhook, an event, a callback) as JSON, within the depth every upstream
 * answer is held to. The server logs why a delivery could not be read, and JSON.parse's own message quotes
 * the text it choked on: these errors say only what was wrong, naming the body as `what`.
 */
export function parseDeliveryJson(body: Uint8Array, what = "the body"): unknown {
  const read = parseBoundedJson(Buffer.from(body).toString("utf8"));
  if (read.ok) return read.value;
  switch (read.problem) {
    case "empty":
      throw new Error(`${what} is empty`);
    case "too-deep":
      throw new Error(`${what} nests more than ${maxJsonDepth} levels deep`);
    default:
      throw new Error(`${what} is not JSON`);
  }
}
