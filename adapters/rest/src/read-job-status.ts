import { JobNotFoundError, type AdapterContext, type JobSnapshot, type z } from "@jobtasks/core";
import { buildSnapshot } from "./build-snapshot.js";
import type { HttpResponse } from "./http-client.js";
import { mapStatus, type StatusReading } from "./map-rest-status.js";
import { pollIntervalFor } from "./poll-interval.js";
import type { RestJobRef } from "./rest-job-ref.js";
import { performRequest, type RequestEnvironment } from "./rest-api.js";
import type { ResolvedRestOptions } from "./rest-options.js";

/**
 * Reading a job: the status request, the 404 grace window of a job just submitted, the follow-up result
 * request of a completed job, and the snapshot built from what they said. Status reads, answers (which
 * read the job first) and cancels (which read it after) all go through here.
 */

export interface StatusReader {
  /** The status request and what it says, before any grace window or result is considered. */
  requestStatus(ref: RestJobRef, context: AdapterContext): Promise<{ response: HttpResponse; reading: StatusReading }>;
  /** The job's snapshot, with the status response it was built from. */
  readStatus(ref: RestJobRef, context: AdapterContext): Promise<{ response: HttpResponse; snapshot: JobSnapshot }>;
}

export interface StatusReaderSetup {
  environment: RequestEnvironment;
  config: ResolvedRestOptions;
  now: () => number;
  /** The output schema a job's result is held to, if any. */
  outputSchemaFor: (ref: RestJobRef) => z.ZodType | undefined;
}

export function createStatusReader({ environment, config, now, outputSchemaFor }: StatusReaderSetup): StatusReader {
  async function requestStatus(
    ref: RestJobRef,
    context: AdapterContext,
  ): Promise<{ response: HttpResponse; reading: StatusReading }> {
    const job = { id: ref.id };
    const response = await performRequest(
      environment,
      {
        purpose: "status",
        options: { url: config.status.url ?? "{{job.id}}" },
        defaultMethod: "GET",
        defaultAccepted: [200],
        passThrough: Object.keys(config.status.http).map(Number),
        context: { job },
        valuesFrom: "upstream",
        logger: context.logger,
      },
      context.signal,
    );
    return { response, reading: mapStatus(config.status, response.status, response.body) };
  }

  async function readStatus(
    ref: RestJobRef,
    context: AdapterContext,
  ): Promise<{ response: HttpResponse; snapshot: JobSnapshot }> {
    const job = { id: ref.id };
    const { response, reading } = await requestStatus(ref, context);
    const ageMs = now() - ref.createdAt;
    if (reading.gone && ageMs < config.status.goneGraceMs) {
      // Just submitted: an eventually consistent upstream may not list the job yet. Ask again soon.
      const snapshot: JobSnapshot = {
        status: "working",
        rawStatus: reading.rawStatus,
        message: `The job is not visible upstream yet (${reading.rawStatus})`,
        pollIntervalMs: pollIntervalFor(config.polling, ageMs, response.retryAfterMs),
      };
      return { response, snapshot };
    }
    if (reading.gone) throw new JobNotFoundError(`The upstream no longer knows this job (${reading.rawStatus})`);
    let resultBody: unknown;
    if (reading.status === "completed" && !reading.isError && config.result.url) {
      const resultResponse = await performRequest(
        environment,
        {
          purpose: "result",
          options: { url: config.result.url },
          defaultMethod: "GET",
          defaultAccepted: [200],
          context: { job, body: response.body },
          valuesFrom: "upstream",
          logger: context.logger,
        },
        context.signal,
      );
      resultBody = resultResponse.body;
    }
    const pollIntervalMs = pollIntervalFor(config.polling, ageMs, response.retryAfterMs);
    const snapshot = buildSnapshot(config, {
      reading,
      body: response.body,
      resultBody,
      job,
      pollIntervalMs,
      outputSchema: outputSchemaFor(ref),
    });
    return { response, snapshot };
  }

  return { requestStatus, readStatus };
}
