import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { hideArns } from "./hide-arns.js";

/**
 * How the adapter reads an error thrown by an AWS SDK v3 client. The SDK attaches `name` (the AWS error
 * code), `$metadata.httpStatusCode` and, for network faults, a Node `code`; nothing else is relied upon.
 */
interface AwsErrorLike {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

function asAwsError(error: unknown): AwsErrorLike {
  return typeof error === "object" && error !== null ? (error as AwsErrorLike) : {};
}

const throttlingNames = new Set([
  "TooManyRequestsException",
  "ThrottlingException",
  "Throttling",
  "RequestLimitExceeded",
]);

export function httpStatusOf(error: unknown): number | undefined {
  return asAwsError(error).$metadata?.httpStatusCode;
}

/** The Batch API answers TooManyRequestsException (HTTP 429) when a call rate is exceeded. */
export function isThrottling(error: unknown): boolean {
  const { name } = asAwsError(error);
  return httpStatusOf(error) === 429 || (name !== undefined && throttlingNames.has(name));
}

export function isAbort(error: unknown): boolean {
  return asAwsError(error).name === "AbortError";
}

/**
 * What is missing when the SDK failed before sending anything because of its own configuration: no Region
 * (a plain Error "Region is missing"), a Region it does not accept ("Region not accepted"), or no usable
 * credentials (the credential and token providers'
 * errors). Retrying does not fix either, and no request reached AWS. Undefined for anything else.
 */
export function missingConfigurationOf(error: unknown): string | undefined {
  const aws = asAwsError(error);
  if (aws.$metadata?.httpStatusCode !== undefined) return undefined;
  if ((aws.message ?? "").startsWith("Region is missing")) {
    return (
      "no AWS Region is configured (the region option, AWS_REGION, AWS_DEFAULT_REGION, a profile with a region, " +
      "or on EC2 the instance metadata)"
    );
  }
  if ((aws.message ?? "").startsWith("Region not accepted")) {
    return "the AWS Region is not valid (look for spaces, quotes or typos in the region option, AWS_REGION, AWS_DEFAULT_REGION or the profile's region)";
  }
  if (aws.name === "CredentialsProviderError" || aws.name === "TokenProviderError") {
    return (
      "no AWS credentials could be loaded (the credentials option, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, " +
      "a profile from the profile option or AWS_PROFILE, or a web identity, container or instance role)"
    );
  }
  return undefined;
}

/**
 * A 2xx answer the SDK could not read (a proxy's HTML page, a body cut short). AWS did answer, so for
 * SubmitJob the job was most likely created; the content is lost, as with no answer at all.
 */
function isUnreadableSuccess(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 200 && status < 300;
}

/**
 * True when the request may or may not have reached AWS, or its answer was lost: no HTTP answer at all
 * (connection reset, timeout, DNS), a 5xx, or an unreadable 2xx. For a read this just means "try again";
 * for SubmitJob it means a job may exist.
 */
export function isOutcomeUnknown(error: unknown): boolean {
  // A missing Region or missing credentials fail before anything is sent, and retrying does not fix them.
  if (isAbort(error) || missingConfigurationOf(error) !== undefined) return false;
  const status = httpStatusOf(error);
  if (status === undefined) return !(error instanceof UpstreamError) && !(error instanceof JobNotFoundError);
  return status >= 500 || isUnreadableSuccess(error);
}

/**
 * Refusals of the request's signature that pass without a configuration change: expired temporary
 * credentials (renewed by the SSO session, the role or the instance profile) and a clock that drifted (the
 * SDK corrects its offset from AWS's answer, so the next call is signed right). AWS refused the call, so
 * for SubmitJob nothing was created; for a read they mean "try again", not "the job is gone".
 */
const renewableCredentialCodes = new Set([
  "ExpiredToken",
  "ExpiredTokenException",
  "RequestExpired",
  "RequestTimeTooSkewed",
]);
/** Also answered for a wrong secret key, which does not pass: only their time-related forms count. */
const signatureCodes = new Set(["InvalidSignatureException", "SignatureDoesNotMatch"]);

export function isRenewableCredentialFault(error: unknown): boolean {
  const { name, message } = asAwsError(error);
  if (name === undefined || httpStatusOf(error) === undefined) return false;
  if (renewableCredentialCodes.has(name)) return true;
  // "Signature expired: 20261129T101010Z is now earlier than ..." is the clock-skew form.
  return signatureCodes.has(name) && /signature expired|skew|earlier than|later than/i.test(message ?? "");
}

/** Worth retrying for an idempotent call: throttling, 5xx, or no answer. */
export function isTransient(error: unknown): boolean {
  return isThrottling(error) || isOutcomeUnknown(error);
}

/**
 * Access key ids and request signatures, wherever a message or a log quotes them (a signed request echoed
 * back by a proxy, a job that printed its environment). Not the redaction of declared secrets, which the
 * core does for the configured keys (withSecretRedaction): this covers keys the adapter never holds (found
 * by the SDK on its own, or another account's), recognised by their shape.
 */
export function hideAwsCredentials(text: string): string {
  return text
    .replace(/\b(?:AKIA|ASIA|AROA|AIDA)[A-Z0-9]{16}\b/g, "[redacted]")
    .replace(/Signature=[0-9a-f]{64}/g, "Signature=[redacted]");
}

/** The service a call went to, named first in its error message. */
export type AwsService = "AWS Batch" | "CloudWatch Logs";

/** The AWS error code of an SDK error (its `name`), if it has one. */
export function awsErrorCodeOf(error: unknown): string | undefined {
  const { name } = asAwsError(error);
  return name && name !== "Error" ? name : undefined;
}

/**
 * Wrap an SDK error into the core's UpstreamError. The message names the operation, the AWS error code
 * and the AWS message with ARNs and key-shaped credentials hidden (the core redacts the configured keys);
 * the SDK error stays as `cause` (it holds no credentials: the SDK never puts signing material into errors).
 */
export function toUpstreamError(
  operation: string,
  error: unknown,
  retryAfterMs?: number,
  service: AwsService = "AWS Batch",
): UpstreamError | JobNotFoundError {
  if (error instanceof UpstreamError || error instanceof JobNotFoundError) return error;
  const missing = missingConfigurationOf(error);
  if (missing) {
    // The SDK's own message adds nothing and may name local files; say what to configure instead. A
    // missing Region stays missing; credentials may come back (an expired SSO session renewed, an instance
    // role briefly unreachable), so those keep the task waiting within the server's outage budget.
    const credentials = asAwsError(error).name !== undefined && /Provider/.test(asAwsError(error).name ?? "");
    return new UpstreamError(`${service} ${operation} could not be sent: ${missing}`, {
      cause: error,
      isRetryable: credentials,
    });
  }
  const aws = asAwsError(error);
  const httpStatus = aws.$metadata?.httpStatusCode;
  const code = aws.name && aws.name !== "Error" ? aws.name : (aws.code ?? "network error");
  // The SDK appends a hint about a hidden `$response` field to errors it could not deserialize: meant for
  // whoever holds the error object, meaningless to an agent.
  const awsMessage = aws.message?.replace(
    /\s*Deserialization error: to see the raw response, inspect the hidden field \{error\}\.\$response on this object\.?/,
    "",
  );
  const detail = awsMessage ? `: ${hideAwsCredentials(hideArns(awsMessage)).slice(0, 500)}` : "";
  const message = `${service} ${operation} failed (${code}${httpStatus ? `, HTTP ${httpStatus}` : ""})${detail}`;
  // Throttling means AWS is up and asks for a slower pace: the server keeps the task working without
  // counting it as an outage.
  const options: ConstructorParameters<typeof UpstreamError>[1] = {
    cause: error,
    isRetryable: isTransient(error) || isRenewableCredentialFault(error),
    isThrottled: isThrottling(error),
  };
  if (httpStatus !== undefined) options.httpStatus = httpStatus;
  if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;
  return new UpstreamError(message, options);
}
