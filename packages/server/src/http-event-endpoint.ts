import type { IncomingMessage, ServerResponse } from "node:http";
import { flattenHeaders } from "@jobtasks/core/adapter-utils";
import { maxDeliveryBytes, type EventReceiver } from "./event-receiver.js";
import { writeJson, writeRefusal } from "./http-responses.js";
import type { Logger } from "./logger.js";

/** Where upstream deliveries arrive: `POST /hooks/<instance>`. Not MCP: no bearer token, no Origin rules. */
export const hooksPathPrefix = "/hooks/";

/**
 * Serve one delivery. The signature is its only authentication, checked by the instance's adapter; the
 * body is read whole (at most maxDeliveryBytes) because a signature covers its exact bytes. Refusals close
 * the connection, as for the MCP endpoint's.
 */
export async function serveEventDelivery(
  request: IncomingMessage,
  response: ServerResponse,
  receiver: EventReceiver,
  logger: Logger,
): Promise<void> {
  const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
  const instance = decodeInstance(pathname.slice(hooksPathPrefix.length));
  if (request.method !== "POST") {
    response.setHeader("allow", "POST");
    writeRefusal(response, 405, { error: "deliveries are POSTed" });
    return;
  }
  if (instance === undefined || !receiver.accepts(instance)) {
    writeRefusal(response, 404, { error: "no adapter instance of this name receives events" });
    return;
  }
  const declaredLength = Number(request.headers["content-length"]);
  if (Number.isFinite(declaredLength) && declaredLength > maxDeliveryBytes) {
    writeRefusal(response, 413, { error: `a delivery may hold at most ${maxDeliveryBytes} bytes` });
    return;
  }
  const body = await readBody(request);
  if (body === "gone") {
    logger.debug({ adapter: instance }, "the sender closed the connection before its delivery arrived");
    return;
  }
  if (body === "too large") {
    writeRefusal(response, 413, { error: `a delivery may hold at most ${maxDeliveryBytes} bytes` });
    return;
  }
  const answer = await receiver.receive(instance, { headers: flattenHeaders(request.headers), body });
  if (answer.httpStatus >= 400) writeRefusal(response, answer.httpStatus, answer.body);
  else writeJson(response, answer.httpStatus, answer.body);
}

/** The instance name of the path, or undefined for one that cannot be a name (empty, nested, bad escapes). */
function decodeInstance(segment: string): string | undefined {
  if (segment === "" || segment.includes("/")) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<Uint8Array | "too large" | "gone"> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > maxDeliveryBytes) return "too large";
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (request.destroyed || (error as NodeJS.ErrnoException).code === "ECONNRESET") return "gone";
    throw error;
  }
  return new Uint8Array(Buffer.concat(chunks));
}
