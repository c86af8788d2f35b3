import { errorCodesOf } from "@jobtasks/core";

/**
 * What went wrong on a request that got no answer, in words for messages, without the address it went
 * wrong with. Whether it can have reached the upstream is the core's `requestNeverSent`.
 */

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
  const codes = errorCodesOf(error);
  const known = codes.map((candidate) => networkReasons[candidate]).find((reason) => reason !== undefined);
  if (known) return known;
  const code = codes[0];
  if (code === undefined) return "network error";
  // TLS failures carry codes such as CERT_HAS_EXPIRED or ERR_TLS_CERT_ALTNAME_INVALID.
  if (/CERT|TLS|SSL/.test(code)) return `TLS handshake failed (${code})`;
  return /^[A-Z][A-Z0-9_]*$/.test(code) ? `network error (${code})` : "network error";
}
