import type { AdapterContext, AnyJobAdapter, JsonValue, TaskStatus } from "@jobtasks/core";

/**
 * The groups of checks the suite runs. A harness may switch a group off with a stated reason (see
 * `ConformanceHarness.skip`), for instance when its upstream mock cannot produce that situation.
 */
export type ConformanceGroup =
  /** specificationVersion, kind, tools, schemas, descriptions. */
  | "shape"
  /** Every entry of `statuses` maps as expected and carries its payload. */
  | "statuses"
  /** An undocumented upstream status stays non-terminal and keeps its raw value. */
  | "unknownStatus"
  /** A job the upstream does not know raises JobNotFoundError. */
  | "notFound"
  /** An outage raises a retryable UpstreamError. */
  | "retryable"
  /** No secret in any error, snapshot, reference or log entry the suite sees (through withSecretRedaction). */
  | "secrets"
  /** An aborted context signal makes doGetStatus reject. */
  | "abort"
  /** doStart gives a JSON reference that fits refSchema and reads back at once (runs only when `start` is given). */
  | "start"
  /** doRespond against the `inputRequired` scenario. */
  | "respond"
  /** doCancel against the `cancel` scenario. */
  | "cancel";

/** A response the suite gives to every outstanding input request of the `inputRequired` scenario. */
export interface ConformanceInputResponse {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}

/** What `additionalTests` receives to write adapter-specific tests with the suite's plumbing. */
export interface ConformanceTestTools<Ref extends JsonValue = JsonValue> {
  harness: ConformanceHarness<Ref>;
  /**
   * Builds an adapter through the harness, wrapped in withSecretRedaction as the server runs it; the suite
   * closes it and runs `cleanup` after the test.
   */
  createAdapter(): Promise<AnyJobAdapter>;
  /** A fresh context as the suite uses it (principal "test", silent logger). */
  createContext(overrides?: Partial<AdapterContext>): AdapterContext;
}

/**
 * What an adapter's test file gives the conformance suite. The harness owns the upstream (a mock or a
 * loopback server) and puts it into the states the suite asks for; the suite only talks to the adapter
 * through the adapter contract.
 *
 * Transports must honour AbortSignal (nock, undici MockAgent and real servers do; a hand-written fake
 * fetch must check `init.signal`), because the suite checks that the adapter passes the signal on.
 */
export interface ConformanceHarness<Ref extends JsonValue = JsonValue> {
  /** Display name used in the describe() block. */
  name: string;
  /** A fresh adapter (and fresh upstream mocks) for each test. */
  createAdapter(): AnyJobAdapter | Promise<AnyJobAdapter>;
  /** Undo what createAdapter and the arrange* calls set up (stop servers, clean nock). */
  cleanup?(): void | Promise<void>;
  /**
   * Credentials the harness configured; the suite checks none of them appears in any error or result of the
   * adapter called through withSecretRedaction, so each must be one the adapter declares in `secrets`.
   */
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
  inputRequired?:
    | {
        arrange(): Ref | Promise<Ref>;
        response: ConformanceInputResponse;
        verifyResponded(ref: Ref): boolean | Promise<boolean>;
      }
    | undefined;

  /**
   * Only for adapters with doRespond: answers that leave their question open upstream, such as a decline
   * of a manual job, which goes on waiting. For each, the suite answers the arranged job's outstanding
   * requests (those `appliesTo` picks; all by default) with `response`, and checks that by the rule the
   * server applies (`settledAnswerKeys` from @jobtasks/core) none of them counts as settled: the server
   * would ignore every later answer to a question it counts as settled. A dismissed form (`cancel`) is
   * tried on the `inputRequired` scenario without being listed here.
   */
  answersLeavingOpen?: ReadonlyArray<{
    /** Shown in the test's title: "a declined manual job". */
    name: string;
    arrange(): Ref | Promise<Ref>;
    response: ConformanceInputResponse;
    appliesTo?(key: string): boolean;
  }>;

  /** Only for adapters with doCancel: a running job, and a check that the upstream saw the cancel. */
  cancel?:
    | {
        arrange(): Ref | Promise<Ref>;
        verifyCancelRequested(ref: Ref): boolean | Promise<boolean>;
      }
    | undefined;

  /**
   * Groups to switch off, each with the reason shown in the test report, e.g.
   * `{ abort: "the SDK client ignores AbortSignal before v3.9" }`. An empty reason is refused.
   */
  skip?: Partial<Record<ConformanceGroup, string>>;
  /** Per-test timeout in milliseconds, for harnesses whose upstream is slow to arrange. Default: vitest's. */
  timeoutMs?: number;
  /** Adapter-specific tests, registered inside the suite's describe() block (unstorage's `additionalTests`). */
  additionalTests?(tools: ConformanceTestTools<Ref>): void;
}
