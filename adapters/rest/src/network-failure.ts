/**
 * What a request that got no answer means: whether it can have reached the upstream (a connection refused
 * never left), and what went wrong in words for messages, without the address it went wrong with.
 */

/** Connection errors that mean the request never left: nothing upstream can have acted on it. */
const notSentCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The error codes along a chain of causes, outermost first (undici and Node may put the socket's on a cause). */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (
    let current: unknown = error, depth = 0;
    current && typeof current === "object" && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  return codes;
}

export function neverSent(error: unknown): boolean {
  return errorCodes(error).some((code) => notSentCodes.has(code));
}

/** What went wrong on the connection, in words, without the address it went wrong with. */
const networkReasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed",
  ENETUNREACH: "network unreachable",
  EHOSTUNREACH: "host unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
};

export function networkReason(error: unknown): string {
  const codes = errorCodes(error);
  const known = codes.map((candidate) => networkReasons[candidate]).find((reason) => reason !== undefined);
  if (known) return known;
  const code = codes[0];
  if (code === undefined) return "network error";
  // TLS failures carry codes such as CERT_HAS_EXPIRED or ERR_TLS_CERT_ALTNAME_INVALID.
  if (/CERT|TLS|SSL/.test(code)) return `TLS handshake failed (${code})`;
  return /^[A-Z][A-Z0-9_]*$/.test(code) ? `network error (${code})` : "network error";
}
