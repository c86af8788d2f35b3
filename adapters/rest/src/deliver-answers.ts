import { InvalidToolInputError, type AdapterContext, type ElicitationResponse, type JobSnapshot } from "@jobtasks/core";
import type { HttpResponse } from "./http-client.js";
import type { InputRequiredOptions } from "./job-options-schema.js";
import { performRequest, type RequestEnvironment } from "./perform-request.js";
import { readAnswer } from "./read-answer.js";

/**
 * Delivering answers to outstanding questions. Every answer resolves its question upstream, so the key is
 * never presented again: an accepted answer through `respond`, anything else through `declineBody`. An
 * answer that does not fit the form, or that its request cannot carry (a header-splitting value, a dot
 * segment in a URL path), is unclear and delivered as a decline, as the hand-written demo adapter does: a
 * job never goes ahead on an unclear answer.
 */

export interface AnswerTarget {
  job: { id: string };
  /** The fresh status read: its body feeds the templates, its input requests say what is outstanding. */
  response: HttpResponse;
  snapshot: JobSnapshot;
}

export async function deliverAnswers(
  environment: RequestEnvironment,
  config: InputRequiredOptions,
  target: AnswerTarget,
  responses: Record<string, ElicitationResponse>,
  context: AdapterContext,
): Promise<void> {
  const outstanding = target.snapshot.inputRequests ?? {};
  const send = (key: string, answer: Record<string, unknown>, bodyOverride?: unknown) =>
    performRequest(
      environment,
      {
        purpose: "respond",
        options: config.respond,
        defaultMethod: "POST",
        defaultAccepted: [200, 201, 202, 204],
        passThrough: config.respond.alreadyAnsweredStatus,
        context: { job: target.job, body: target.response.body, key, answer },
        valuesFrom: "upstream",
        ...(bodyOverride !== undefined ? { bodyOverride } : {}),
      },
      context.signal,
    );
  const decline = (key: string, action: string) => send(key, { action }, config.respond.declineBody);

  for (const [key, response] of Object.entries(responses)) {
    const form = outstanding[key];
    // Overtaken: answered elsewhere, or the job moved on since the core's read.
    if (!form) continue;
    const answer = readAnswer(form, response);
    if (answer.kind === "declined") {
      await decline(key, response.action);
      continue;
    }
    if (answer.kind === "unclear") {
      context.logger.warn({ key, problem: answer.problem }, "the answer does not fit the form; delivering it as a decline");
      await decline(key, "decline");
      continue;
    }
    try {
      await send(key, { ...answer.content, action: "accept" });
    } catch (error) {
      if (!(error instanceof InvalidToolInputError)) throw error;
      context.logger.warn({ key, field: error.field, problem: error.problem }, "the answer cannot be sent; delivering it as a decline");
      await decline(key, "decline");
    }
  }
}
