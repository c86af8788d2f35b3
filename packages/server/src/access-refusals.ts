import type { InputRequest } from "@jobtasks/core";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/**
 * A caller authenticated as the task's owner, but without a scope the tool needs. Over HTTP the request is
 * refused earlier with 403 insufficient_scope (scopesMissingFor in http-authorization.ts), so a client can
 * step up; this is the answer where no such challenge exists (a handle tool's taskId, a call the HTTP check
 * let through).
 */
export function insufficientScope(what: string, missing: readonly string[]): TaskProtocolError {
  return new TaskProtocolError(
    errorCodes.invalidParams,
    `Insufficient scope: ${what} needs the scope ${quoteAll(missing)}, which this caller's token does not grant`,
    { requiredScopes: [...missing] },
  );
}

/**
 * An answer to an approval from a caller without the approval scope: an agent that may run a job is not
 * thereby the person who approves it. The refusal names the scope and where that person can approve: the
 * question's own text carries the upstream's review page.
 */
export function approvalRefused(
  toolName: string,
  key: string,
  scope: string,
  request: InputRequest | undefined,
): TaskProtocolError {
  const link = firstLink(request?.params.message ?? "");
  const where = link
    ? ` A person holding it can approve at ${link}, or answer the question from a client signed in with that scope.`
    : " A person holding it can answer the question from a client signed in with that scope, or approve it in the system running the job.";
  return new TaskProtocolError(
    errorCodes.invalidParams,
    `Invalid params: question ${key} of ${toolName} is an approval, which needs the scope "${scope}"; this caller's token does not grant it, and nothing was sent.${where}`,
    { requiredScopes: [scope], key, ...(link ? { approveAt: link } : {}) },
  );
}

/** The first web link in a question's text, without the sentence's punctuation that may follow it. */
function firstLink(text: string): string | undefined {
  return /https?:\/\/[^\s)"'<>\]]+/.exec(text)?.[0].replace(/[.,;:!?]+$/, "");
}

function quoteAll(scopes: readonly string[]): string {
  return scopes.map((scope) => `"${scope}"`).join(" and ");
}
