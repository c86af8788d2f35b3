import { OutcomeUnknownError } from "../errors.js";
import { errorCodesOf } from "../network-errors.js";

/**
 * Error translation every adapter that speaks to an upstream repeats: what may be kept of a failed
 * connection, and the error for a call the upstream may have acted on.
 */

/**
 * The system code of a failed connection (ECONNRESET, UND_ERR_SOCKET, CERT_HAS_EXPIRED) along the chain of
 * causes, when one has that shape. The code alone: the errors' messages may name the host and port.
 */
export function connectionErrorCode(error: unknown): string | undefined {
  return errorCodesOf(error).find((code) => /^[A-Z][A-Z0-9_]{1,40}$/.test(code));
}

/**
 * A failed connection's error reduced to its code (or its class's name), to keep as a `cause`: causes
 * travel into logs, and the original's message or fields may name the upstream's host.
 */
export function withoutConnectionDetails(error: unknown): Error {
  const name = (error as Error | null)?.name;
  return new Error(connectionErrorCode(error) ?? (typeof name === "string" ? name : "network error"));
}

/**
 * The failure of a call that changes something (a submit, a dispatch, a retry) once the upstream may
 * have acted on it: never retryable, since a blind retry could act twice. `message` says what may exist
 * and how to look for it.
 */
export function mayHaveActed(message: string, options: { httpStatus?: number | undefined; cause?: unknown } = {}) {
  return new OutcomeUnknownError(message, {
    isRetryable: false,
    ...(options.httpStatus !== undefined ? { httpStatus: options.httpStatus } : {}),
    cause: options.cause,
  });
}
