import { describe, expect, it } from "vitest";
import type { JsonValue } from "@jobtasks/core";
import { findAdapterShapeProblems } from "./adapter-shape-problems.js";
import { createConformanceSession, type ConformanceSession } from "./conformance-session.js";
import type { ConformanceGroup, ConformanceHarness } from "./conformance-types.js";
import {
  registerAbortTests,
  registerNotFoundTests,
  registerRetryableTests,
  registerSecretTests,
} from "./error-conformance-tests.js";
import { registerCancelTests, registerRespondTests, registerStartTests } from "./lifecycle-conformance-tests.js";
import { registerStatusTests, registerUnknownStatusTests } from "./status-conformance-tests.js";

type Register<Ref extends JsonValue> = (session: ConformanceSession<Ref>, timeoutMs?: number) => void;

const taskStatuses = ["working", "input_required", "completed", "failed", "cancelled"];

/** Harness mistakes, reported as a failing test rather than as confusing failures further down. */
function findHarnessProblems(harness: ConformanceHarness<any>): string[] {
  const problems: string[] = [];
  if (harness.statuses.length === 0) problems.push("harness.statuses is empty");
  for (const { rawStatus, expected, isError } of harness.statuses) {
    if (!taskStatuses.includes(expected)) problems.push(`statuses "${rawStatus}": ${expected} is not a task status`);
    if (isError !== undefined && expected !== "completed")
      problems.push(`statuses "${rawStatus}": isError only applies to completed`);
  }
  if (harness.statuses.some((entry) => entry.rawStatus === harness.unknownRawStatus)) {
    problems.push(`unknownRawStatus "${harness.unknownRawStatus}" is listed in statuses`);
  }
  for (const [group, reason] of Object.entries(harness.skip ?? {})) {
    if (typeof reason !== "string" || reason.trim() === "") problems.push(`skip.${group} needs a reason`);
  }
  return problems;
}

/**
 * The conformance suite every jobtasks adapter runs: registers a describe() block of vitest tests that
 * exercise the adapter only through the adapter contract. Call it at the top level of a test file.
 */
export function runAdapterConformance<Ref extends JsonValue = JsonValue>(harness: ConformanceHarness<Ref>): void {
  describe(`adapter conformance: ${harness.name}`, () => {
    const session = createConformanceSession(harness);
    const timeoutMs = harness.timeoutMs;

    it("has a usable harness", () => {
      expect(findHarnessProblems(harness)).toEqual([]);
    });

    const group = (name: ConformanceGroup, title: string, register: Register<Ref>) => {
      const reason = harness.skip?.[name];
      if (reason !== undefined) {
        it.skip(`${title} (switched off: ${reason})`, () => undefined);
        return;
      }
      describe(title, () => register(session, timeoutMs));
    };

    group("shape", "shape", () => {
      it(
        "declares the v1 contract, a kind, and well-formed tools",
        async () => {
          const adapter = await session.createUnwrappedAdapter();
          expect(findAdapterShapeProblems(adapter)).toEqual([]);
        },
        timeoutMs,
      );
    });
    group("statuses", "status mapping", registerStatusTests);
    group("unknownStatus", "unknown upstream status", registerUnknownStatusTests);
    group("notFound", "job not found", registerNotFoundTests);
    group("retryable", "upstream outage", registerRetryableTests);
    if (harness.secrets.length === 0 && harness.skip?.secrets === undefined) {
      it.skip("secrets (switched off: the harness configures no secrets)", () => undefined);
    } else {
      group("secrets", "secrets", registerSecretTests);
    }
    group("abort", "abort signal", registerAbortTests);
    if (harness.start) group("start", "start", registerStartTests);
    group("respond", "input requests", registerRespondTests);
    group("cancel", "cancellation", registerCancelTests);

    if (harness.additionalTests) {
      describe("additional tests", () => {
        harness.additionalTests?.({
          harness,
          createAdapter: () => session.createAdapter(),
          createContext: (overrides) => session.createContext(overrides),
        });
      });
    }
  });
}
