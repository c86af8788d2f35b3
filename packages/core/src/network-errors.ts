/**
 * What a failed request's error says about the connection, for adapters that speak HTTP themselves. fetch
 * and undici wrap a socket's error in one or two more (a TypeError, a RequestError), so the system code
 * sits somewhere along the chain of causes. Codes only: the errors' messages may name the host and port.
 */

/** How far along a chain of causes a code is looked for; the wrappers above add at most two or three. */
const maxCauseDepth = 5;

/** Connection errors that mean the request never left: nothing upstream can have acted on it. */
const neverSentCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The string `code`s along an error's chain of causes, outermost first. */
export function errorCodesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (
    let current: unknown = error, depth = 0;
    current && typeof current === "object" && depth < maxCauseDepth;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  return codes;
}

/**
 * Whether the request never reached the upstream (refused, host not found, no route, connect timeout), so
 * that sending it again cannot create anything twice. Any other failure may have come after the upstream
 * acted: for a creating call, that is an OutcomeUnknownError.
 */
export function requestNeverSent(error: unknown): boolean {
  return errorCodesOf(error).some((code) => neverSentCodes.has(code));
}
