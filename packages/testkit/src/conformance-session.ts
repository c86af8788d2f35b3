import { afterEach, expect } from "vitest";
import { withSecretRedaction, type AdapterContext, type AnyJobAdapter, type JsonValue } from "@jobtasks/core";
import type { ConformanceGroup, ConformanceHarness } from "./conformance-types.js";
import { createTestContext, type LogEntry } from "./create-test-context.js";
import { findSecretLeaks } from "./secret-leaks.js";
import { findSnapshotProblems } from "./snapshot-problems.js";

/**
 * The plumbing every conformance test shares: adapters built per test and closed after it, contexts whose
 * log entries are kept, and the secret checks that apply to everything a test sees. Tests call the adapter
 * as the server does, through withSecretRedaction: an adapter keeps its secrets out of what it hands back
 * by declaring them, and leaks one it does not declare.
 */
export function createConformanceSession<Ref extends JsonValue>(harness: ConformanceHarness<Ref>) {
  let adapters: AnyJobAdapter[] = [];
  let logEntries: LogEntry[] = [];
  const checkSecrets = harness.skip?.secrets === undefined && harness.secrets.length > 0;

  afterEach(async () => {
    const entries = logEntries;
    const built = adapters;
    adapters = [];
    logEntries = [];
    try {
      for (const adapter of built) await adapter.close?.();
    } finally {
      await harness.cleanup?.();
    }
    if (checkSecrets) expect(findSecretLeaks(entries, harness.secrets, "the adapter's log entries")).toEqual([]);
  });

  const session = {
    harness,

    isSwitchedOff(group: ConformanceGroup): boolean {
      return harness.skip?.[group] !== undefined;
    },

    /** The adapter as the server calls it: wrapped in the redaction of its declared secrets. */
    async createAdapter(): Promise<AnyJobAdapter> {
      return withSecretRedaction(await session.createUnwrappedAdapter());
    },

    /** The adapter as the harness built it, for checks of its own shape. */
    async createUnwrappedAdapter(): Promise<AnyJobAdapter> {
      const adapter = await harness.createAdapter();
      adapters.push(adapter);
      return adapter;
    },

    /** A fresh context whose log entries the suite checks for secrets after the test. */
    createContext(overrides: Partial<AdapterContext> = {}): AdapterContext {
      return createTestContext({ logEntries, ...overrides });
    },

    expectNoLeaks(value: unknown, label: string): void {
      if (checkSecrets) expect(findSecretLeaks(value, harness.secrets, label)).toEqual([]);
    },

    /** A valid snapshot with no secret in it. */
    expectValidSnapshot(snapshot: unknown, label: string): void {
      expect(findSnapshotProblems(snapshot), `${label} is not a valid JobSnapshot`).toEqual([]);
      session.expectNoLeaks(snapshot, label);
    },

    /** Await a call that must fail; returns what it threw, already checked for secrets. */
    async expectRejection(call: Promise<unknown>, label: string): Promise<unknown> {
      let outcome: unknown;
      try {
        outcome = await call;
      } catch (error) {
        session.expectNoLeaks(error, `the error thrown by ${label}`);
        return error;
      }
      expect.fail(`${label} was expected to throw, but it resolved with ${safeJson(outcome)}`);
    },
  };
  return session;
}

export type ConformanceSession<Ref extends JsonValue> = ReturnType<typeof createConformanceSession<Ref>>;

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 300) ?? String(value);
  } catch {
    return String(value);
  }
}
