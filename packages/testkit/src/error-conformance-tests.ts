import { expect, it } from "vitest";
import { JobNotFoundError, UpstreamError, type JsonValue } from "@jobtasks/core";
import type { ConformanceSession } from "./conformance-session.js";

/** Tests of the failure paths the core relies on to tell "gone" from "try again", and of cancellation. */

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Two copies of @jobtasks/core break instanceof; say so instead of a bare "expected false to be true". */
function duplicateCoreHint(error: unknown, className: string): string {
  return error instanceof Error && error.name === className
    ? ` (it is named ${className} but is not an instance of @jobtasks/core's class: is @jobtasks/core installed twice?)`
    : "";
}

export function registerNotFoundTests<Ref extends JsonValue>(
  session: ConformanceSession<Ref>,
  timeoutMs?: number,
): void {
  it(
    "raises JobNotFoundError for a job the upstream does not know",
    async () => {
      const adapter = await session.createAdapter();
      const ref = await session.harness.arrangeNotFound();
      const error = await session.expectRejection(adapter.doGetStatus(ref, session.createContext()), "doGetStatus");
      expect(
        error instanceof JobNotFoundError,
        `expected JobNotFoundError, got ${describeError(error)}${duplicateCoreHint(error, "JobNotFoundError")}`,
      ).toBe(true);
    },
    timeoutMs,
  );
}

export function registerRetryableTests<Ref extends JsonValue>(
  session: ConformanceSession<Ref>,
  timeoutMs?: number,
): void {
  it(
    "raises a retryable UpstreamError when the upstream is unavailable",
    async () => {
      const adapter = await session.createAdapter();
      const ref = await session.harness.arrangeRetryableFailure();
      const error = await session.expectRejection(adapter.doGetStatus(ref, session.createContext()), "doGetStatus");
      expect(
        error instanceof UpstreamError,
        `expected UpstreamError, got ${describeError(error)}${duplicateCoreHint(error, "UpstreamError")}`,
      ).toBe(true);
      expect((error as UpstreamError).isRetryable, "UpstreamError.isRetryable").toBe(true);
    },
    timeoutMs,
  );
}

export function registerAbortTests<Ref extends JsonValue>(session: ConformanceSession<Ref>, timeoutMs?: number): void {
  const { harness } = session;
  it(
    "passes the context's AbortSignal on: an aborted signal makes doGetStatus reject",
    async () => {
      const adapter = await session.createAdapter();
      const rawStatus =
        harness.statuses.find((entry) => entry.expected === "working")?.rawStatus ??
        harness.statuses[0]?.rawStatus ??
        harness.unknownRawStatus;
      const ref = await harness.arrangeStatus(rawStatus);
      const controller = new AbortController();
      controller.abort(new Error("aborted by the conformance suite"));
      await session.expectRejection(
        adapter.doGetStatus(ref, session.createContext({ signal: controller.signal })),
        "doGetStatus with an aborted signal",
      );
    },
    timeoutMs,
  );
}

export function registerSecretTests<Ref extends JsonValue>(session: ConformanceSession<Ref>, timeoutMs?: number): void {
  const { harness } = session;
  it(
    "keeps secrets out of snapshots, errors and log entries",
    async () => {
      expect(
        harness.secrets.every((secret) => typeof secret === "string" && secret !== ""),
        "harness.secrets must be non-empty strings",
      ).toBe(true);
      const adapter = await session.createAdapter();
      const seen: unknown[] = [];
      for (const rawStatus of harness.statuses.map((entry) => entry.rawStatus)) {
        seen.push(await adapter.doGetStatus(await harness.arrangeStatus(rawStatus), session.createContext()));
      }
      for (const arrange of [harness.arrangeNotFound, harness.arrangeRetryableFailure]) {
        const ref = await arrange.call(harness);
        await adapter.doGetStatus(ref, session.createContext()).then(
          (snapshot) => seen.push(snapshot),
          (error: unknown) => seen.push(error),
        );
      }
      session.expectNoLeaks(seen, "what doGetStatus answered or threw");
    },
    timeoutMs,
  );
}
