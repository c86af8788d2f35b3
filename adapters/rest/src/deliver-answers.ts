import { InvalidToolInputError, type AdapterContext, type ElicitationResponse, type JobSnapshot } from "@jobtasks/core";
import type { HttpResponse } from "./http-client.js";
import type { InputRequiredOptions } from "./job-options-schema.js";
import { performRequest, type RequestEnvironment } from "./rest-api.js";
import { readAnswer, type ReadAnswer } from "./read-answer.js";

/**
 * Delivering answers to outstanding questions. Every delivered answer resolves its question upstream, so
 * the key is never presented again: an accept through `respond`, a decline or cancel through
 * `declineBody`. An accept that does not fit the form, or that its request cannot carry (a header-splitting
 * value, a dot segment in a URL path), is refused with InvalidToolInputError naming `<key>.<field>` (the
 * server answers -32602) and the question stays open: a person's accept is never sent as a reject.
 * Every answer is checked before any is sent, so a refusal sends nothing.
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
        logger: context.logger,
        valuesFrom: "upstream",
        ...(bodyOverride !== undefined ? { bodyOverride } : {}),
      },
      context.signal,
    );
  const decline = (key: string, action: string) => send(key, { action }, config.respond.declineBody);

  const readable: [string, ReadAnswer][] = [];
  for (const [key, response] of Object.entries(responses)) {
    const form = outstanding[key];
    // Overtaken: answered elsewhere, or the job moved on since the core's read.
    if (form) readable.push([key, readAnswer(key, form, response)]);
  }
  for (const [key, answer] of readable) {
    if (answer.kind === "declined") {
      await decline(key, responses[key]!.action);
      continue;
    }
    try {
      await send(key, { ...answer.content, action: "accept" });
    } catch (error) {
      if (!(error instanceof InvalidToolInputError)) throw error;
      // The template names the answer's field ("note"), or "arguments" for the whole answer.
      const field = error.field === "arguments" ? key : `${key}.${error.field}`;
      context.logger.info({ key, field }, "refused an answer its request cannot carry");
      throw new InvalidToolInputError(field, error.problem, { cause: error });
    }
  }
}
