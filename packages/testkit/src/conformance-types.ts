import type { AnyJobAdapter, JsonValue, TaskStatus } from "@jobtasks/core";

/**
 * What an adapter's test file gives the conformance suite. The harness owns the upstream (a mock or a
 * loopback server) and puts it into the states the suite asks for; the suite only talks to the adapter
 * through the adapter contract.
 */
export interface ConformanceHarness<Ref extends JsonValue = JsonValue> {
  /** Display name used in the describe() block. */
  name: string;
  /** A fresh adapter (and fresh upstream mocks) for each test. */
  createAdapter(): AnyJobAdapter | Promise<AnyJobAdapter>;
  /** Undo what createAdapter and the arrange* calls set up (stop servers, clean nock). */
  cleanup?(): void | Promise<void>;
  /** Credentials the harness configured; the suite checks none of them appears in any error or result. */
  secrets: string[];

  /** Every upstream status the adapter claims to map, with the unified status it must map to. */
  statuses: ReadonlyArray<{ rawStatus: string; expected: TaskStatus; isError?: boolean }>;
  /** Make the upstream report `rawStatus` for a job, and return that job's reference. */
  arrangeStatus(rawStatus: string): Ref | Promise<Ref>;
  /** A status value the upstream does not document today (the suite expects it to stay non-terminal). */
  unknownRawStatus: string;

  /** A reference the upstream answers "not found" for. */
  arrangeNotFound(): Ref | Promise<Ref>;
  /** A reference whose status read fails with a retryable upstream error (503, throttling). */
  arrangeRetryableFailure(): Ref | Promise<Ref>;

  /** Start a job through the first tool; the suite checks the ref can be read back at once. */
  start?: { tool: string; input: unknown };

  /**
   * Only for adapters with doRespond: a job waiting for input. The suite answers every outstanding request
   * with `response` and expects the job to leave input_required (or the answer to be accepted upstream,
   * as `verifyResponded` checks).
   */
  inputRequired?: {
    arrange(): Ref | Promise<Ref>;
    response: { action: "accept" | "decline" | "cancel"; content?: Record<string, string | number | boolean> };
    verifyResponded(ref: Ref): boolean | Promise<boolean>;
  };

  /** Only for adapters with doCancel: a running job, and a check that the upstream saw the cancel. */
  cancel?: {
    arrange(): Ref | Promise<Ref>;
    verifyCancelRequested(ref: Ref): boolean | Promise<boolean>;
  };
}
