import type { ElicitationResponse } from "./mcp-shapes.js";
import type { RespondOutcomeV1 } from "./v1/index.js";

/**
 * The keys among delivered answers whose question the answer settled upstream, by the contract's rule
 * (RespondOutcomeV1): the adapter's `leftOpen` when it names one, otherwise every answer but `cancel`. Only
 * these count as answered; the others stay open for a later answer to the same question. An outcome of any
 * other shape (an adapter resolving to something else) is read as no outcome.
 */
export function settledAnswerKeys(
  responses: Readonly<Record<string, Pick<ElicitationResponse, "action">>>,
  outcome: unknown,
): string[] {
  const leftOpen = (outcome as RespondOutcomeV1 | null | undefined)?.leftOpen;
  if (Array.isArray(leftOpen)) {
    const open = new Set<unknown>(leftOpen);
    return Object.keys(responses).filter((key) => !open.has(key));
  }
  return Object.entries(responses)
    .filter(([, response]) => response.action !== "cancel")
    .map(([key]) => key);
}
