import { expect, it } from "vitest";
import { isTerminalStatus, type JsonValue } from "@jobtasks/core";
import type { ConformanceSession } from "./conformance-session.js";

/** Tests of the status mapping: every documented status, and one the upstream may add tomorrow. */

export function registerStatusTests<Ref extends JsonValue>(session: ConformanceSession<Ref>, timeoutMs?: number): void {
  const { harness } = session;
  for (const { rawStatus, expected, isError } of harness.statuses) {
    const errorNote = isError === undefined ? "" : ` (isError ${isError})`;
    it(
      `maps "${rawStatus}" to ${expected}${errorNote}`,
      async () => {
        const adapter = await session.createAdapter();
        const ref = await harness.arrangeStatus(rawStatus);
        const snapshot = await adapter.doGetStatus(ref, session.createContext());
        session.expectValidSnapshot(snapshot, `the snapshot for "${rawStatus}"`);
        expect(snapshot.status, `the unified status for "${rawStatus}"`).toBe(expected);
        if (isError !== undefined) {
          expect(snapshot.result?.isError ?? false, `result.isError for "${rawStatus}"`).toBe(isError);
        }
      },
      timeoutMs,
    );
  }
}

export function registerUnknownStatusTests<Ref extends JsonValue>(
  session: ConformanceSession<Ref>,
  timeoutMs?: number,
): void {
  const { harness } = session;
  it(
    `keeps the undocumented status "${harness.unknownRawStatus}" non-terminal, with its raw value`,
    async () => {
      const adapter = await session.createAdapter();
      const ref = await harness.arrangeStatus(harness.unknownRawStatus);
      const snapshot = await adapter.doGetStatus(ref, session.createContext());
      session.expectValidSnapshot(snapshot, "the snapshot for the unknown status");
      expect(
        isTerminalStatus(snapshot.status),
        `"${harness.unknownRawStatus}" mapped to terminal ${snapshot.status}`,
      ).toBe(false);
      expect(snapshot.rawStatus).toContain(harness.unknownRawStatus);
    },
    timeoutMs,
  );
}
