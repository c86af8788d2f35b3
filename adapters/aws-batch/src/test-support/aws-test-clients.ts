import { BatchClient } from "@aws-sdk/client-batch";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import nock from "nock";

/** Fake credentials: tests never read real AWS configuration. Long enough for the core's redaction to act on. */
export const testCredentials = {
  accessKeyId: "AKIATESTFAKEKEY00001",
  secretAccessKey: "fake/secret+access/key/used/only/in/tests0",
};
export const testRegion = "us-east-1";
export const batchOrigin = `https://batch.${testRegion}.amazonaws.com`;
export const logsOrigin = `https://logs.${testRegion}.amazonaws.com`;

/**
 * Real SDK clients with explicit region and credentials, so nothing is read from the environment or
 * ~/.aws. `maxAttempts` defaults to the SDK's own retries to show the adapter stays safe with them.
 */
export function testBatchClient(maxAttempts?: number): BatchClient {
  return new BatchClient({
    region: testRegion,
    credentials: { ...testCredentials },
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
  });
}

export function testLogsClient(): CloudWatchLogsClient {
  return new CloudWatchLogsClient({ region: testRegion, credentials: { ...testCredentials }, maxAttempts: 1 });
}

/** Block every real connection; loopback stays open for tests that run local servers. */
export function blockRealNetwork(): void {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
}

/** The JSON error body and header Batch uses for a throttled call. */
export function throttledReply(): [number, Record<string, string>, Record<string, string>] {
  return [
    429,
    { __type: "TooManyRequestsException", message: "Too Many Requests" },
    { "x-amzn-errortype": "TooManyRequestsException", "content-type": "application/json" },
  ];
}

/** Fast retries for tests; the real defaults wait hundreds of milliseconds. */
export const fastRetry = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 };
