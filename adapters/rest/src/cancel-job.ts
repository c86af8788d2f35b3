import { JobNotFoundError, UpstreamError, type AdapterContext } from "@jobtasks/core";
import type { HttpResponse } from "./http-client.js";
import type { CancelOptions } from "./job-options-schema.js";
import type { StatusReading } from "./map-rest-status.js";
import { performRequest, type RequestEnvironment } from "./rest-api.js";
import { parseTemplate } from "./template.js";

/**
 * The cancel request. Its templates see `job.id` and, when they read it, `body`: the current status
 * response (some APIs cancel by an id the status monitor carries). A 404 or 410 means the job is gone, or
 * that the API offers no cancel at that URL (an Azure service without `:cancel`); a status read tells them
 * apart, so a job that is still running is never reported as lost.
 */

export interface CancelTarget {
  job: { id: string };
  /** Reads the job's status once more: its response, and what it says. */
  readStatus: () => Promise<{ response: HttpResponse; reading: StatusReading }>;
  /** Within status.goneGraceMs of the submit: an upstream may not list the job yet. */
  justSubmitted: boolean;
}

/** Whether any template of the request reads the status body (`{{body.id}}`). */
function readsStatusBody(cancel: CancelOptions): boolean {
  const templates: string[] = [
    cancel.url,
    ...Object.values(cancel.query ?? {}),
    ...Object.values(cancel.headers ?? {}),
  ];
  const collect = (value: unknown): void => {
    if (typeof value === "string") templates.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect(cancel.body);
  return templates.some((template) =>
    parseTemplate(template).some((part) => part.kind === "value" && /^\$?\.?body\b/.test(part.path.trim())),
  );
}

export async function cancelJob(
  environment: RequestEnvironment,
  cancel: CancelOptions,
  target: CancelTarget,
  context: AdapterContext,
): Promise<void> {
  const body = readsStatusBody(cancel) ? (await target.readStatus()).response.body : undefined;
  const response = await performRequest(
    environment,
    {
      purpose: "cancel",
      options: cancel,
      defaultMethod: "POST",
      defaultAccepted: [200, 202, 204],
      passThrough: [...cancel.alreadyFinishedStatus, 404, 410],
      context: body === undefined ? { job: target.job } : { job: target.job, body },
      valuesFrom: "upstream",
      logger: context.logger,
    },
    context.signal,
  );
  if (cancel.alreadyFinishedStatus.includes(response.status) || (response.status !== 404 && response.status !== 410))
    return;
  const { reading } = await target.readStatus();
  if (reading.gone && !target.justSubmitted)
    throw new JobNotFoundError(`The upstream no longer knows this job (HTTP ${response.status})`);
  if (reading.gone) {
    throw new UpstreamError(
      "The upstream does not list this job yet, so it cannot be cancelled yet; try again shortly",
      { httpStatus: response.status, isRetryable: true },
    );
  }
  throw new UpstreamError(
    `The upstream does not offer cancelling this job (the cancel request answered HTTP ${response.status})`,
    {
      httpStatus: response.status,
      isRetryable: false,
    },
  );
}
